import type { EventLog } from "@feedlab/ingest";
import type { ProgressWatcher } from "@feedlab/projector";
import type { OpenDb } from "@feedlab/sql";
import { trainSimulatedModel } from "@feedlab/trainer";
import type { Logger } from "pino";
import { createAuditService } from "../audit/audit.service.ts";
import { createAuthService } from "../auth/auth.service.ts";
import { createMembersService } from "../auth/members.ts";
import type { ChangeBus } from "../changes/change-bus.ts";
import type { Config } from "../config.ts";
import type { ServiceDeps } from "../deps.ts";
import { createErasureService } from "../erasure/erasure.service.ts";
import { createEventStoreReader } from "../events/event-store.read.ts";
import { createEventsService } from "../events/events.service.ts";
import { createExperimentsService } from "../experiments/experiments.service.ts";
import { createFeedService } from "../feed/feed.service.ts";
import { createGroupsService } from "../groups/groups.service.ts";
import { createMediaFilesService } from "../media/media-files.ts";
import { createHealthService } from "../monitoring/health.service.ts";
import type { MonitoringRecorder } from "../monitoring/recorder.ts";
import { createPackageService } from "../packages/package.service.ts";
import { createParticipantsService } from "../participants/participants.service.ts";
import { createApprovals } from "../prolific/approvals.ts";
import { createProlificClient } from "../prolific/client.ts";
import { createProlificService } from "../prolific/prolific.service.ts";
import { createQualityService, excludedByRules } from "../quality/quality.service.ts";
import type { RecommenderServices } from "../recommenders/recommenders.service.ts";
import { createMailer } from "../reminders/mailer.ts";
import { createScheduleKeeper } from "../reminders/reminders.ts";
import { createCompletenessService } from "../results/completeness.service.ts";
import { createMonitorService } from "../results/monitor.service.ts";
import { createPowerService } from "../results/power.service.ts";
import { createStatsService } from "../results/stats.service.ts";
import { createSessionsService } from "../sessions/sessions.service.ts";
import { createDryRunsService } from "../simulation/dry-runs/dry-runs.service.ts";
import { createStudyService } from "../study/study.service.ts";
import { createStudyFilesService } from "../study-files/study-files.service.ts";
import { createSurveyResponsesService } from "../surveys/responses.service.ts";
import { createSurveysService } from "../surveys/surveys.service.ts";
import type { Metrics } from "../system/metrics.ts";
import { createTrainingService } from "../training/training.service.ts";
import { createTemplatesService } from "../ui/templates.service.ts";
import { createVideosService } from "../videos/videos.service.ts";
import { studyServicesOn } from "./study-services.ts";

/** The clients the services of an API process are built on (clients.ts, runtime.ts). */
export interface ServiceClients {
  readonly config: Config;
  readonly deps: ServiceDeps;
  readonly link: OpenDb["link"];
  readonly eventLog: EventLog;
  readonly changes: ChangeBus;
  readonly recommenders: RecommenderServices;
  readonly monitoring: MonitoringRecorder;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Read-your-writes: waits until the projections have passed a log position. */
  readonly progress: ProgressWatcher;
  /**
   * How long participant lookups on request paths (stamping contexts, resolved cookies, the study
   * gate) may be kept; undefined: each service's few seconds.
   */
  readonly oneProcessCacheMs: number | undefined;
}

/**
 * The services of an API process, and the change subscription that drops what they cached when
 * another request or process changed it.
 */
export function createServices(clients: ServiceClients) {
  const {
    config,
    deps,
    link,
    eventLog,
    changes,
    recommenders,
    monitoring,
    metrics,
    logger,
    oneProcessCacheMs,
  } = clients;
  const { db } = deps;
  const events = createEventsService({
    ...deps,
    log: eventLog,
    counters: metrics.events,
    monitoring,
    contextTtlMs: oneProcessCacheMs,
  });
  // One sessions service: the feed and survey responses check session ownership with the same one.
  const sessions = createSessionsService({ ...deps, idleMs: config.sessionIdleMinutes * 60_000 });
  const audit = createAuditService(deps);
  // Prolific (api.md "Prolific (wave 4)"): without a token, its routes answer 409 prolific_not_configured.
  const prolificClient =
    config.prolific.token === null
      ? null
      : createProlificClient({ url: config.prolific.url, token: config.prolific.token });
  const prolificLog = logger.child({ component: "prolific" });
  const approvals = createApprovals({ ...deps, client: prolificClient, audit, log: prolificLog });
  // Longitudinal studies: lapses, and reminders through FEEDLAB_SMTP_URL when it is set.
  const scheduleKeeper = createScheduleKeeper({
    ...deps,
    audit,
    log: logger.child({ component: "schedule" }),
    mailer: config.mail.smtpUrl === null ? null : createMailer(config.mail.smtpUrl, config.mail.from),
    publicUrl: config.publicUrl,
    joinSecret: config.joinSecret,
  });
  const study = createStudyService(deps, {
    gateCacheMs: oneProcessCacheMs,
    onFinished: (userId, experimentId) => void approvals.finished(userId, experimentId),
  });
  const templates = createTemplatesService({
    ...deps,
    onVersion: (templateId) => void changes.publish({ type: "template", template_id: templateId }),
  });
  const auth = createAuthService(deps, { resolveCacheMs: oneProcessCacheMs });
  const participants = createParticipantsService({ ...deps, joinSecret: config.joinSecret });
  const erasure = createErasureService({
    ...deps,
    log: eventLog,
    audit,
    onErased: () => void changes.publish({ type: "participants_erased" }),
  });
  const feed = createFeedService({ db, dispatcher: recommenders.dispatcher, sessions, bus: changes });
  const services = {
    auth,
    members: createMembersService(deps),
    experiments: createExperimentsService({
      ...deps,
      mailConfigured: config.mail.smtpUrl !== null,
      onStudyChange: () => {
        study.invalidate();
        // min_response_ms (latency parity) takes effect on the next page.
        feed.forgetTimings();
      },
    }),
    groups: createGroupsService({
      ...deps,
      recommenders: recommenders.registry,
      uiFits: templates.fits,
      onChange: (groupId) => void changes.publish({ type: "group", group_id: groupId }),
    }),
    videos: createVideosService({ ...deps, onChange: (change) => void changes.publish(change) }),
    mediaFiles: createMediaFilesService(deps),
    participants,
    sessions,
    study,
    audit,
    erasure,
    dryRuns: createDryRunsService({
      ...deps,
      log: logger.child({ component: "dry-runs" }),
      chromium: config.chromium,
      runner: {
        createParticipant: async (experimentId, loginId, groupId) => {
          const p = await participants.createSimulated(experimentId, loginId, groupId);
          return { userId: p.user_id, loginId: p.login_id, groupId: p.group_id ?? groupId };
        },
        issueToken: async (userId) => (await auth.issueParticipantSession(userId)).token,
        waitForLog: (position, timeoutMs) => clients.progress.waitFor(position, timeoutMs),
        trainSimulated: async (experimentId) => {
          await trainSimulatedModel(
            {
              db,
              logger: logger.child({ component: "dry-runs" }),
              now: deps.now,
            },
            experimentId,
          );
          await changes.publish({ type: "model", experiment_id: experimentId });
        },
      },
      eraseSimulated: async (experimentId) => {
        await erasure.simulated(experimentId);
      },
    }),
    feed,
    surveys: createSurveysService(deps),
    surveyResponses: createSurveyResponsesService({ ...deps, sessions, study }),
    events,
    eventStore: createEventStoreReader(db, link),
    training: createTrainingService(deps),
    quality: createQualityService({ db }),
    power: createPowerService({ db }),
    stats: createStatsService({
      ...deps,
      ruleBreakers: (experimentId, rules, leftOut) => excludedByRules(db, experimentId, rules, leftOut),
    }),
    completeness: createCompletenessService(deps),
    prolific: createProlificService({ ...deps, audit, log: prolificLog, client: prolificClient }),
    approvals,
    scheduleKeeper,
    closeProlific: async () => {
      await approvals.stop();
      await prolificClient?.close();
    },
    monitor: createMonitorService({ ...deps, monitoring }),
    health: createHealthService({
      ...deps,
      catalog: recommenders.registry,
      instance: recommenders.dispatcher.instance,
      build: recommenders.build,
      pools: recommenders.pools,
      monitoring,
    }),
    templates,
    studyFiles: createStudyFilesService({
      db,
      servicesOn: studyServicesOn({
        ...deps,
        log: logger.child({ component: "study-files" }),
        addressPolicy: recommenders.addressPolicy,
      }),
      // An applied study changes groups, templates, recommenders, pools and surveys at once: every
      // process drops all it cached.
      onApplied: async () => {
        await changes.publish({ type: "resync" });
        feed.forgetTimings();
      },
    }),
  };
  const packages = createPackageService({
    ...services,
    db,
    exportStudy: services.studyFiles.export,
    now: deps.now,
  });
  // Stamping contexts hold a group's recommender keys and UI versions: drop them when either changes.
  changes.subscribe((change) => {
    if (
      change.type === "group" ||
      change.type === "template" ||
      change.type === "resync" ||
      change.type === "participants_erased"
    )
      events.invalidateContexts();
    // An erased participant's cookie answers 401 at once, and nothing of theirs stays remembered.
    if (change.type === "participants_erased" || change.type === "resync") {
      auth.forgetResolved();
      study.invalidate();
    }
  });
  return { ...services, packages };
}
