import type { ProgressWatcher } from "@feedlab/projector";
import {
  ConsentBody,
  ErrorBody,
  ExclusionBody,
  IdParams,
  IncludeSimulated,
  JoinBody,
  JoinResult,
  LanguageBody,
  Me,
  Participant,
  ParticipantCreate,
  ParticipantListQuery,
  ParticipantPage,
  ParticipantSummary,
} from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { Type } from "@sinclair/typebox";
import { adminOf, participantOf } from "../auth/auth.middleware.ts";
import type { AuthService } from "../auth/auth.service.ts";
import { type CookiePolicy, clearCookie, PARTICIPANT_COOKIE, setSessionCookie } from "../auth/cookies.ts";
import { FailureLimiter } from "../auth/rate-limit.ts";
import type { ErasureService } from "../erasure/erasure.service.ts";
import { assertExperiment } from "../experiments/exists.ts";
import { tooManyRequests } from "../http/errors.ts";
import { readAfter } from "../http/read-after.ts";
import { route } from "../http/route.ts";
import type { StudyService } from "../study/study.service.ts";
import { participantsCsv } from "./participants.export.ts";
import type { ParticipantsService } from "./participants.service.ts";

const MeQuery = Type.Object({
  session_id: Type.Optional(
    Type.String({
      format: "uuid",
      description: "The page's session: `progress.visit` is the visit it makes",
    }),
  ),
  after: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        "A `position` from POST /api/v1/events: the answer counts the events up to it (waits at most 2 s; X-Feedlab-Read-After says whether it got there)",
    }),
  ),
});
const UserParams = Type.Object({ user_id: Type.String({ format: "uuid" }) });

const ParticipantsQuery = Type.Composite([
  ParticipantListQuery,
  Type.Object({
    format: Type.Optional(Type.Union([Type.Literal("json"), Type.Literal("csv")], { default: "json" })),
    spreadsheet_safe: Type.Optional(Type.Boolean({ description: "CSV only" })),
    include_simulated: Type.Optional({
      ...IncludeSimulated,
      description: "CSV only: true includes simulated participants, which the CSV leaves out by default",
    }),
  }),
]);

export interface ParticipantRoutesDeps {
  readonly db: Db;
  readonly participants: ParticipantsService;
  readonly auth: AuthService;
  readonly cookies: CookiePolicy;
  readonly study: StudyService;
  readonly erasure: ErasureService;
  /** For `/me?after=`: the projections' progress through the event log. */
  readonly progress: ProgressWatcher;
  /** How long a read-your-writes request waits for the projections (default 2 s). */
  readonly readAfterTimeoutMs?: number;
  /** Joins one client address may make per minute; 0: no limit. */
  readonly joinRateLimit?: number;
}

export function participantRoutes({
  db,
  participants,
  auth,
  cookies,
  study,
  erasure,
  progress,
  readAfterTimeoutMs = 2000,
  joinRateLimit = 0,
}: ParticipantRoutesDeps) {
  // Every join attempt counts (a guessing client fails as often as it succeeds).
  const joins = joinRateLimit > 0 ? new FailureLimiter({ max: joinRateLimit, windowMs: 60_000 }) : null;
  return [
    route({
      method: "post",
      path: "/api/v1/participants/join",
      setsCookie: true,
      tag: "participants",
      summary: "Join (or resume) a study; sets the participant cookie",
      description:
        "Creates the participant on first join, assigned by the experiment's `assignment` method (docs/assignment.md; balanced by weight unless set); later joins resume the same user and group, full or paused arms or not. When every arm is full or paused, a newcomer gets 403 experiment_full. One client address may join FEEDLAB_JOIN_RATE_LIMIT times a minute (default 120), then 429 too_many_requests with Retry-After. With FEEDLAB_JOIN_SECRET set, `sig` must be the hex HMAC-SHA256 of `{experiment_id}:{login_id}` under it (403 bad_signature otherwise). A newcomer joins only a running experiment (403 experiment_not_open otherwise); a returning participant is let back into a running or completed one (the post survey and completion page), and of a paused one answers 403 experiment_paused. A login id never makes a participant simulated: one that starts `sim-` joins as a real participant, and the login id of a dry run's simulated participant answers 409 duplicate_login_id.",
      access: "public",
      body: JoinBody,
      responses: {
        200: { description: "Joined", schema: JoinResult },
        403: {
          description:
            "bad_signature, experiment_not_open, experiment_full (every arm full or paused), or experiment_paused for a returning participant",
          schema: ErrorBody,
        },
        404: { description: "Unknown experiment", schema: ErrorBody },
        409: {
          description: "duplicate_login_id: a simulated participant has the login id",
          schema: ErrorBody,
        },
        429: {
          description: "too_many_requests: too many joins from this address; see Retry-After",
          schema: ErrorBody,
        },
      },
      handler: async (ctx, { body }) => {
        if (joins) {
          const wait = joins.retryAfterSeconds(ctx.ip);
          if (wait > 0)
            throw tooManyRequests(wait, `Too many joins from this address. Try again in ${wait} seconds.`);
          joins.fail(ctx.ip);
        }
        const browser = ctx.acceptsLanguages().filter((l) => l !== "*");
        const joined = await participants.join(body.experiment_id, body.login_id, body.recruiting, body.sig, {
          ...(body.lang === undefined ? {} : { lang: body.lang }),
          browser,
        });
        const { token, expiresAt } = await auth.issueParticipantSession(joined.user_id);
        setSessionCookie(ctx, PARTICIPANT_COOKIE, token, expiresAt, cookies);
        ctx.body = joined;
      },
    }),
    route({
      method: "get",
      path: "/api/v1/me",
      tag: "participants",
      summary: "The participant, their group's configuration, and where they stand in the study",
      description:
        "`simulated`: the participant is a dry run's (a draft experiment lets only them onto its pages). `status`: `active`, `finished` once the experiment's completion rule is met (every condition set reached, the post survey answered when the rule asks for it; checked on this request and recorded once), or `lapsed` once a window of the schedule closed unused (final; no completion). `next_session`: the schedule's next window while unused; `session_open`: false when the session given as `session_id` began (or would begin now) before it, as feed and related then answer 409 session_not_open; `email_reminders`: the consent page offers an e-mail field (docs/longitudinal.md). `completion`: null until finished, then `{code, redirect_url}` with the URL's placeholders filled. `consent`: null without a consent text, else the text, its version and when the participant agreed or declined. `experiment_name`: the experiment's name, for the pages' header. `progress`: sessions and minutes on the pages so far, counted as the completion rule counts them (a session once the server received an event of it, begun at least `min_session_gap_minutes` after the last counted one; minutes from the arrival times of the participant's events, each gap counted up to 30 s, never client timestamps), `visit`, the visit the session given as `session_id` makes, and `sessions_needed` and `feed_minutes_needed`, what the rule asks for (null for a condition it does not set), so the pages can show how far the participant has come.",
      access: "participant",
      responses: { 200: { description: "The participant", schema: Me } },
      query: MeQuery,
      handler: async (ctx, { query }) => {
        await readAfter(progress, ctx, query.after, readAfterTimeoutMs);
        ctx.body = await study.me(participantOf(ctx).userId, query.session_id);
      },
    }),
    route({
      method: "put",
      path: "/api/v1/me/language",
      tag: "participants",
      summary: "Change the participant's language",
      description:
        "When the experiment's `language_switch` allows it (403 language_switch_off otherwise). `language` must be one of the study's languages (422 unknown_language). The session goes on; every change is recorded with its time and the language before (the participants CSV's `language` is the one they have now).",
      access: "participant",
      body: LanguageBody,
      responses: {
        204: { description: "Changed (or already the participant's)" },
        403: { description: "language_switch_off", schema: ErrorBody },
        422: { description: "unknown_language", schema: ErrorBody },
      },
      handler: async (ctx, { body }) => {
        await study.setLanguage(participantOf(ctx).userId, body.language);
        ctx.status = 204;
      },
    }),
    route({
      method: "post",
      path: "/api/v1/participants/consent",
      tag: "participants",
      summary: "Agree to (or decline) the experiment's consent text",
      description:
        "Records the time and the version of the text. Until a participant agrees, the feed, watch and survey endpoints answer 403 consent_required. `agree: false` records a refusal (the participant sees a closing page; nothing else is collected). Without a consent text this does nothing. A `version` that is not the current text's -> 409 consent_changed (the text was edited meanwhile). `email` (optional, with agreeing): where reminders go when the study sends them by e-mail; stored sealed with the participant's key and erased with them, ignored when the study sends none; a malformed address -> 422 invalid_email, nothing stored.",
      access: "participant",
      body: ConsentBody,
      responses: {
        204: { description: "Recorded" },
        409: { description: "consent_changed", schema: ErrorBody },
        422: { description: "invalid_email: the address is malformed", schema: ErrorBody },
      },
      handler: async (ctx, { body }) => {
        await study.consent(participantOf(ctx).userId, body.agree !== false, body.version, body.email);
        ctx.status = 204;
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/experiments/{id}/participants",
      audit: "participant.add",
      tag: "participants",
      summary: "Register a participant (optionally into a given group)",
      access: "admin",
      role: "editor",
      params: IdParams,
      body: ParticipantCreate,
      responses: {
        201: { description: "Created", schema: Participant },
        403: {
          description:
            "experiment_full: no group_id given and every arm full or paused (name an arm to register into it all the same)",
          schema: ErrorBody,
        },
        409: { description: "duplicate_login_id", schema: ErrorBody },
        422: { description: "unknown_group", schema: ErrorBody },
      },
      handler: async (ctx, { params, body }) => {
        ctx.status = 201;
        ctx.body = await participants.create(params.id, body.login_id, body.group_id);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/participants",
      tag: "participants",
      summary: "List an experiment's participants (JSON, or the participants CSV)",
      audit: ({ query }) => (query.format === "csv" ? "export.participants" : null),
      identifies: ({ query }) => query.format === "csv",
      description:
        'format=csv: one row per participant (api.md): user_id, login_id, group_id, group_name, assignment_method, assignment_probability (docs/assignment.md; `manual` with an empty probability for a pre-registration by the researcher), status (`joined`: no event yet; `started`; `declined`; `lapsed`: a window of the schedule closed unused; `finished`), joined_at, consented_at, finished_at (empty until the study flow records them), sessions, events, last_seen_at (the last event received), then one column per link parameter captured at join (those of recruiting platforms first, then the others by name; one named like a column of this export is `recruiting.<name>`), language, reminders_sent (reminders the SMTP server accepted), simulated, excluded, excluded_reason, then the quality measures (docs/quality.md): active_seconds, visible_watch_seconds, watch_seconds, hidden_share, pointer_events, viewport_width, seconds_per_question, straight_lined, attention_passed, attention_failed, duplicate_recruiting_id, quality_flags (space-separated), excluded_by_rules. The CSV is one stream of every row, and leaves simulated participants (dry runs) out unless include_simulated=true. JSON (api.md "Lists at study scale"): `{items, next_cursor, total}`, one page of at most `limit` (default 100, at most 1000) participants in `sort` order (joined_at by default; last_seen_at, login_id; `-` for descending; ties by user_id), filtered by status, group_id, q (login id contains, any case) and simulated; pass next_cursor as `cursor` with the same sort for the next page (400 invalid_cursor for another). Simulated participants are listed, each with `simulated`, unless `simulated` asks for one kind. spreadsheet_safe=true puts an apostrophe before text a spreadsheet would run as a formula.',
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: ParticipantsQuery,
      responses: {
        200: { description: "A page of participants (JSON), or the CSV", schema: ParticipantPage },
        400: { description: "invalid_cursor", schema: ErrorBody },
        404: { description: "Unknown experiment", schema: ErrorBody },
      },
      handler: async (ctx, { params, query }) => {
        if (query.format !== "csv") {
          const { format: _f, spreadsheet_safe: _s, include_simulated: _i, ...page } = query;
          ctx.body = await participants.list(params.id, page);
          return;
        }
        await assertExperiment(db, params.id); // 404 before the stream starts
        ctx.type = "text/csv; charset=utf-8";
        ctx.attachment(`participants-${params.id}.csv`);
        ctx.set("Cache-Control", "no-store");
        ctx.body = participantsCsv(db, params.id, {
          safe: query.spreadsheet_safe === true,
          includeSimulated: query.include_simulated === true,
        });
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/participants/{user_id}",
      tag: "participants",
      summary: "Read one participant as the participants list shows them",
      description:
        "The list's item for this participant: status, sessions (every session they registered, as completion counts them), events, surveys, exclusion and whether they are simulated.",
      access: "admin",
      role: "analyst",
      params: UserParams,
      responses: {
        200: { description: "The participant", schema: ParticipantSummary },
        404: { description: "Unknown participant", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await participants.get(params.user_id);
      },
    }),
    route({
      method: "patch",
      path: "/api/v1/admin/participants/{user_id}",
      audit: "participant.exclusion",
      tag: "participants",
      summary: "Exclude a participant from analysis, or include them again",
      description:
        "`{excluded: true, reason}`: the participant stays in the data; the participants CSV flags them (`excluded`, `excluded_reason`) and the stats leave them out of every count and rate (`excluded_participants` per arm). `{excluded: false}` includes them again. Excluding without a reason -> 422 reason_required.",
      access: "admin",
      role: "editor",
      params: UserParams,
      body: ExclusionBody,
      responses: {
        204: { description: "Changed" },
        404: { description: "Unknown participant", schema: ErrorBody },
        422: { description: "reason_required", schema: ErrorBody },
      },
      handler: async (ctx, { params, body }) => {
        await participants.setExcluded(params.user_id, body.excluded, body.reason);
        ctx.status = 204;
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/admin/participants/{user_id}",
      tag: "participants",
      summary: "Erase a participant and all their data",
      description:
        "Erases the participant everywhere: the participant, their sessions, survey responses and dismissals, every read-model row (shared counts such as view counts and co-views lose their part), and their records in the event log (deleted on the embedded log; on Kafka their key is destroyed, so no export, tail or replay reads them). Their cookie answers 401 afterwards. The audit log records `participant.erase` with row counts. Erasing an erased participant again answers 204.",
      access: "admin",
      role: "study_owner",
      params: UserParams,
      responses: {
        204: { description: "Erased" },
        404: { description: "Unknown participant", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        await erasure.participant(params.user_id, adminOf(ctx).username);
        ctx.status = 204;
      },
    }),
    route({
      method: "post",
      path: "/api/v1/me/withdraw",
      setsCookie: true,
      tag: "participants",
      summary: "Withdraw from the study and erase all of one's data",
      description:
        "The participant's own erasure, as `DELETE /admin/participants/{user_id}` does it; the cookie is cleared and answers 401 afterwards. The audit log records `participant.withdraw` (no admin) with row counts.",
      access: "participant",
      responses: { 204: { description: "Withdrawn and erased" } },
      handler: async (ctx) => {
        await erasure.participant(participantOf(ctx).userId, null);
        clearCookie(ctx, PARTICIPANT_COOKIE, cookies);
        ctx.status = 204;
      },
    }),
  ];
}
