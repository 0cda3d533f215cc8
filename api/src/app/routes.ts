import { auditRoutes } from "../audit/audit.routes.ts";
import { authRoutes } from "../auth/auth.routes.ts";
import { eventRoutes } from "../events/events.routes.ts";
import { schemaRoutes } from "../events/schemas.routes.ts";
import { experimentRoutes } from "../experiments/experiments.routes.ts";
import { memberRoutes } from "../experiments/members.routes.ts";
import { feedRoutes } from "../feed/feed.routes.ts";
import { groupRoutes } from "../groups/groups.routes.ts";
import { mediaRoutes } from "../media/media.routes.ts";
import { healthRoutes } from "../monitoring/health.routes.ts";
import { packageRoutes } from "../packages/package.routes.ts";
import { balanceRoutes } from "../participants/balance.routes.ts";
import { participantRoutes } from "../participants/participants.routes.ts";
import { prolificRoutes } from "../prolific/prolific.routes.ts";
import { qualityRoutes } from "../quality/quality.routes.ts";
import { recommenderRoutes } from "../recommenders/recommenders.routes.ts";
import { reminderRoutes } from "../reminders/reminders.routes.ts";
import { attritionRoutes } from "../results/attrition.ts";
import { powerRoutes } from "../results/power.routes.ts";
import { resultsRoutes } from "../results/results.routes.ts";
import { sessionRoutes } from "../sessions/sessions.routes.ts";
import { settingsRoutes } from "../settings/settings.routes.ts";
import { dryRunRoutes } from "../simulation/dry-runs/dry-runs.routes.ts";
import { studyFileRoutes } from "../study-files/study-files.routes.ts";
import { surveyRoutes } from "../surveys/surveys.routes.ts";
import { trainingRoutes } from "../training/training.routes.ts";
import { uiPresetRoutes } from "../ui/presets.ts";
import { templateRoutes } from "../ui/templates.routes.ts";
import { videoRoutes } from "../videos/videos.routes.ts";
import type { Runtime } from "./runtime.ts";

/** The route table: every resource of the API, mounted on the services of a runtime. */
export function routeTable(rt: Runtime) {
  const { services, db, config } = rt;
  const cookies = { secure: config.secureCookies };
  return [
    ...authRoutes({ auth: services.auth, cookies, audit: services.audit }),
    ...auditRoutes({ audit: services.audit, members: services.members }),
    ...memberRoutes({ db, members: services.members }),
    ...experimentRoutes(services),
    ...groupRoutes(services),
    ...videoRoutes(services),
    ...mediaRoutes({
      files: services.mediaFiles,
      media: rt.media,
      maxUploadBytes: config.maxUploadBytes,
      store: config.mediaS3 ? "s3" : "folder",
    }),
    ...participantRoutes({
      db,
      participants: services.participants,
      auth: services.auth,
      cookies,
      study: services.study,
      erasure: services.erasure,
      progress: rt.progress,
      joinRateLimit: config.joinRateLimit,
    }),
    ...balanceRoutes({ db, now: () => new Date() }),
    ...sessionRoutes(services),
    ...feedRoutes({ feed: services.feed, progress: rt.progress, study: services.study }),
    ...eventRoutes(services),
    ...schemaRoutes(),
    ...surveyRoutes({
      db,
      surveys: services.surveys,
      surveyResponses: services.surveyResponses,
      study: services.study,
    }),
    ...recommenderRoutes({ registry: rt.recommenders.registry, members: services.members }),
    ...uiPresetRoutes(),
    ...templateRoutes(services),
    ...trainingRoutes(services),
    ...resultsRoutes(services),
    ...qualityRoutes(services),
    ...powerRoutes(services),
    ...healthRoutes(services),
    ...settingsRoutes({ config }),
    ...dryRunRoutes(services),
    ...studyFileRoutes(services),
    ...packageRoutes(services),
    ...prolificRoutes(services),
    ...reminderRoutes(rt.deps),
    ...attritionRoutes({ db }),
  ];
}
