import { type Static, Type } from "@sinclair/typebox";
import { ParticipantAssignment } from "./assignment.ts";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { RECRUITING_NAME_PATTERN } from "./enums.ts";
import { ExperimentStatus } from "./experiments.ts";
import { SurfaceConfig } from "./groups.ts";
import { LanguageTag } from "./languages.ts";
import { IntegerIn } from "./numbers.ts";
import { NextSession } from "./schedule.ts";

const LoginId = Type.String({ minLength: 1, maxLength: 255, pattern: "^\\S(.*\\S)?$" });

const RecruitingValue = Type.String({ maxLength: 200 });

/**
 * A participant of a dry run (issue 36, api.md "Simulated participants"): only the server-side runner
 * makes one, and this flag, never the login id, is what marks them.
 */
const Simulated = Type.Boolean({
  description:
    "A simulated participant of a dry run (made by the server-side runner; its login id starts `sim-`, but the flag, never the login id, is what marks it)",
});

/**
 * `include_simulated` of the results and exports (api.md "Simulated participants"): they leave
 * simulated participants out unless it is true.
 */
export const IncludeSimulated = Type.Boolean({
  default: false,
  description: "true includes simulated participants (dry runs), which are left out by default",
});

export const JoinBody = Type.Object(
  {
    experiment_id: Uuid,
    login_id: LoginId,
    recruiting: Type.Optional(
      Type.Record(Type.String({ pattern: RECRUITING_NAME_PATTERN }), RecruitingValue, {
        additionalProperties: false,
        maxProperties: 20,
        description:
          "The study link's parameters (up to 20; names of letters, digits and `_ . -`; values up to 200 characters): the recruiting platforms' (PROLIFIC_PID, STUDY_ID, SESSION_ID, workerId, assignmentId, hitId) and any other a researcher adds, for example to balance assignment on. Kept from the first join that carries them (a participant pre-registered by the researcher included; a later link adds what is missing and never rewrites a recorded value) and exported with them",
      }),
    ),
    sig: Type.Optional(
      Type.String({
        maxLength: 128,
        description:
          "With FEEDLAB_JOIN_SECRET set: the hex HMAC-SHA256 of `{experiment_id}:{login_id}` under it (missing or wrong -> 403 bad_signature)",
      }),
    ),
    lang: Type.Optional(
      Type.Unsafe<string>({
        ...LanguageTag,
        description:
          "The join link's `lang`: the participant's language when the study lists it (else the browser's preferred languages, then the study's default, decide)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type JoinBody = Static<typeof JoinBody>;

export const LanguageBody = Type.Object(
  { language: Type.Unsafe<string>({ ...LanguageTag, description: "One of the study's languages" }) },
  { additionalProperties: false },
);
export type LanguageBody = Static<typeof LanguageBody>;

/** An arm's id, or null before the participant has one (api.md "Assignment (wave 4)"). */
const ArmOrNone = Nullable(Uuid, {
  description:
    "The arm; null until the participant has one (a study that balances on a pre survey answer assigns when it is answered: api.md, Assignment)",
});

export const JoinResult = Type.Object({
  user_id: Uuid,
  login_id: Type.String(),
  experiment_id: Uuid,
  group_id: ArmOrNone,
});
export type JoinResult = Static<typeof JoinResult>;

export const ParticipantCreate = Type.Object(
  { login_id: LoginId, group_id: Type.Optional(Uuid) },
  { additionalProperties: false },
);
export type ParticipantCreate = Static<typeof ParticipantCreate>;

export const ConsentBody = Type.Object(
  {
    agree: Type.Optional(
      Type.Boolean({ default: true, description: "false records that the participant declined" }),
    ),
    version: Type.Optional(
      Type.String({
        maxLength: 64,
        description: "The version of the text shown (from /me); a different one -> 409 consent_changed",
      }),
    ),
    email: Type.Optional(
      Type.String({
        maxLength: 254,
        description:
          "Where reminders go, when the study sends them (reminders.email); stored sealed, erased with the participant. A malformed address -> 422 invalid_email.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ConsentBody = Static<typeof ConsentBody>;

export const Participant = Type.Object({
  user_id: Uuid,
  login_id: Type.String(),
  group_id: ArmOrNone,
  created_at: Timestamp,
});
export type Participant = Static<typeof Participant>;

const ParticipantStatus = Type.Union([
  Type.Literal("active"),
  Type.Literal("finished"),
  Type.Literal("lapsed"),
  Type.Literal("withdrawn"),
]);

export const Me = Type.Object({
  user_id: Uuid,
  login_id: Type.String(),
  experiment_id: Uuid,
  experiment_status: ExperimentStatus,
  group_id: ArmOrNone,
  algorithm_config: Nullable(SurfaceConfig, {
    description: "The arm's; null until the participant has an arm",
  }),
  ui_config: Nullable(SurfaceConfig, { description: "The arm's; null until the participant has an arm" }),
  status: ParticipantStatus,
  completion: Type.Union([
    Type.Object({
      code: Type.Union([Type.String(), Type.Null()]),
      redirect_url: Type.Union([Type.String(), Type.Null()]),
      redirect_delay_s: IntegerIn(0, 60, {
        description: "Seconds the completion page shows the code before going to redirect_url",
      }),
    }),
    Type.Null(),
  ]),
  consent: Type.Union(
    [
      Type.Object({
        text: Type.String({ description: "Markdown" }),
        version: Type.String({ description: "Identifies the text agreed to (a hash of it)" }),
        consented_at: Type.Union([Timestamp, Type.Null()]),
        declined_at: Type.Union([Timestamp, Type.Null()]),
      }),
      Type.Null(),
    ],
    { description: "null when the experiment has no consent step" },
  ),
  experiment_name: Type.String({
    description: "The experiment's name: the participant pages' header shows it",
  }),
  progress: Type.Object(
    {
      sessions: Type.Integer({
        description:
          "Sessions the server received an event of, each begun at least completion.min_session_gap_minutes after the last counted one",
      }),
      feed_minutes: Type.Number({
        description:
          "Minutes on the pages by the arrival of the participant's events (each gap at most 30 s)",
      }),
      visit: Type.Integer({
        description:
          "The visit the session given as `session_id` makes (it counts once an event of it arrives); without one, `sessions`",
      }),
      sessions_needed: Type.Union([Type.Integer(), Type.Null()], {
        description: "The completion rule's `after_sessions`; null when it sets none",
      }),
      feed_minutes_needed: Type.Union([Type.Number(), Type.Null()], {
        description: "The completion rule's `after_feed_minutes`; null when it sets none",
      }),
    },
    {
      description:
        "What counts toward completion so far, counted as the completion rule counts it, and what the rule asks for",
    },
  ),
  next_session: Nullable(NextSession, {
    description:
      'The schedule\'s next window while it is not used yet (api.md "Longitudinal studies (wave 4)"); null without a schedule, once every window is used, or lapsed',
  }),
  session_open: Type.Boolean({
    description:
      "Whether the session given as `session_id` counts: false before the schedule's next window (the feed and watch pages answer 409 session_not_open; a new session is needed once it opens). true without a schedule.",
  }),
  email_reminders: Type.Boolean({
    description:
      "The study sends reminders by e-mail: the consent page offers an optional e-mail field (POST /api/v1/participants/consent `email`)",
  }),
  simulated: Simulated,
  language: Type.String({
    description:
      "The participant's language (BCP 47), one of `languages`: the texts of /me and the surveys are in it",
  }),
  languages: Type.Array(Type.String(), { description: "The study's languages" }),
  language_switch: Type.Boolean({
    description: "The participant may change language (PUT /api/v1/me/language)",
  }),
});
export type Me = Static<typeof Me>;

export const SessionBody = Type.Object({ session_id: Uuid }, { additionalProperties: false });
export type SessionBody = Static<typeof SessionBody>;

export const SessionRecord = Type.Object({
  session_id: Uuid,
  user_id: Uuid,
  created_at: Timestamp,
  ended_at: Type.Union([Timestamp, Type.Null()]),
});

/** A participant as the console's list shows them: where they stand in the study and what they did. */
export const ParticipantSummary = Type.Composite([
  Participant,
  Type.Object({
    status: Type.Union(
      [
        Type.Literal("joined"),
        Type.Literal("started"),
        Type.Literal("declined"),
        Type.Literal("finished"),
        Type.Literal("lapsed"),
      ],
      {
        description:
          "As in the participants CSV: finished, lapsed (a window of the schedule closed unused), declined (the consent), started (any event) or joined",
      },
    ),
    consented_at: Type.Union([Timestamp, Type.Null()]),
    declined_at: Type.Union([Timestamp, Type.Null()]),
    finished_at: Type.Union([Timestamp, Type.Null()]),
    sessions: Type.Integer({
      description:
        "Sessions the server received an event of, as completion counts them (a registered session without events does not count)",
    }),
    events: Type.Integer(),
    last_seen_at: Type.Union([Timestamp, Type.Null()], { description: "When their last event arrived" }),
    active_now: Type.Boolean({ description: "An event arrived in the last 5 minutes" }),
    surveys_answered: Type.Integer(),
    surveys_dismissed: Type.Integer(),
    excluded_at: Type.Union([Timestamp, Type.Null()]),
    excluded_reason: Type.Union([Type.String(), Type.Null()]),
    join_sig: Type.Union([Type.String(), Type.Null()], {
      description: "With FEEDLAB_JOIN_SECRET set, the `sig` of this participant's join link; else null",
    }),
    simulated: Simulated,
    assignment: Nullable(ParticipantAssignment, {
      description: "How the participant was assigned; null until they have an arm",
    }),
  }),
]);
export type ParticipantSummary = Static<typeof ParticipantSummary>;

/** The orders of the participants list (api.md "Lists at study scale"); `-` sorts descending. */
export const PARTICIPANT_SORTS = [
  "joined_at",
  "-joined_at",
  "last_seen_at",
  "-last_seen_at",
  "login_id",
  "-login_id",
] as const;
export type ParticipantSort = (typeof PARTICIPANT_SORTS)[number];

/** `GET /api/v1/admin/experiments/{id}/participants` as JSON: one page, and what comes after it. */
export const ParticipantPage = Type.Object({
  items: Type.Array(ParticipantSummary),
  next_cursor: Nullable(Type.String({ description: "Pass as `cursor` for the next page; null on the last" })),
  total: Type.Integer({ description: "Participants matching the filters, over all pages" }),
});
export type ParticipantPage = Static<typeof ParticipantPage>;

/** The JSON list's paging and filters (api.md "Lists at study scale"). */
export const ParticipantListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(
    Type.String({ maxLength: 400, description: "`next_cursor` of the previous page, with the same sort" }),
  ),
  sort: Type.Optional(
    Type.Union(
      PARTICIPANT_SORTS.map((s) => Type.Literal(s)),
      {
        default: "joined_at",
        description:
          "joined_at (join order, the default), last_seen_at (the last event's arrival; never seen sorts as earliest) or login_id; a `-` prefix sorts descending. Ties go by user_id.",
      },
    ),
  ),
  status: Type.Optional(
    Type.Union(
      [
        Type.Literal("joined"),
        Type.Literal("started"),
        Type.Literal("declined"),
        Type.Literal("finished"),
        Type.Literal("lapsed"),
      ],
      { description: "Only participants at this place in the study, as the CSV's status says" },
    ),
  ),
  group_id: Type.Optional(Uuid),
  q: Type.Optional(
    Type.String({
      maxLength: 255,
      pattern: "^[^\\u0000]*$",
      description: "Only login ids that contain this text, any case",
    }),
  ),
  simulated: Type.Optional(
    Type.Boolean({
      description: "true lists only simulated participants, false only real ones; absent, both",
    }),
  ),
});
export type ParticipantListQuery = Static<typeof ParticipantListQuery>;

export const ExclusionBody = Type.Object(
  {
    excluded: Type.Boolean({
      description: "true excludes the participant from analysis; false includes them again",
    }),
    reason: Type.Optional(
      Type.String({
        maxLength: 1000,
        pattern: "^[^\\u0000]*$",
        description: "Why (required to exclude): kept with the data and exported",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExclusionBody = Static<typeof ExclusionBody>;
