import { type Static, Type } from "@sinclair/typebox";
import { Assignment } from "./assignment.ts";
import { Timestamp, Uuid } from "./common.ts";
import { EXPERIMENT_STATUSES, REDIRECT_DELAY_DEFAULT_S } from "./enums.ts";
import { Languages, LanguageTag } from "./languages.ts";
import { LocalizedTextOf } from "./localized-text.ts";
import { IntegerIn, NumberIn } from "./numbers.ts";
import { ProlificLink } from "./prolific.ts";
import { ExclusionRules } from "./quality.ts";
import { Reminders, Schedule } from "./schedule.ts";

export const ExperimentStatus = Type.Union(EXPERIMENT_STATUSES.map((s) => Type.Literal(s)));
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

const Name = Type.String({ minLength: 1, maxLength: 255 });

/** The longest consent text (Markdown) an experiment keeps. */
const CONSENT_TEXT_MAX = 50_000;

/** PostgreSQL cannot store NUL characters: refused as bad input (422), never a 500. */
const NO_NUL = "^[^\\u0000]*$";

const ConsentText = Type.Union(
  [
    LocalizedTextOf(
      Type.String({ maxLength: CONSENT_TEXT_MAX, pattern: NO_NUL }),
      "Markdown shown to participants before anything else.",
    ),
    Type.Null(),
  ],
  {
    description:
      "Markdown shown to participants before anything else, in one or several languages; null (or blank) for no consent step. Editing it makes a new version: participants are asked again only if they have not consented yet.",
  },
);

/** When a participant is finished, and where they go then (api.md, Study flow). */
export const Completion = Type.Object(
  {
    after_sessions: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description:
          "Reached during the participant's Nth session (visit): sessions count once the server has received an event of them (see min_session_gap_minutes).",
      }),
    ),
    min_session_gap_minutes: Type.Optional(
      NumberIn(0, 100_000, {
        default: 0,
        description:
          "A session counts toward after_sessions only when it began (its first event reached the server) at least this many minutes after the previous counted session began: real returns, not reloads. 0 (the default): every session the server received an event of counts.",
      }),
    ),
    after_feed_minutes: Type.Optional(
      // From a hundredth of a minute: the time on the pages is counted in hundredths of a minute.
      NumberIn(0.01, 100_000, {
        description:
          "Reached after this many minutes on the feed and watch pages, over all sessions, by the server's clock: the gaps between the arrivals of a session's events, each counted up to 30 s (client timestamps never count).",
      }),
    ),
    after_post_survey: Type.Optional(
      Type.Boolean({
        description:
          "The post survey is shown once the other conditions are reached (or the study is completed); finishing waits for its answer.",
      }),
    ),
    code: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "The completion code shown to the participant.",
      }),
    ),
    redirect_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        pattern: NO_NUL,
        description:
          "http(s) URL the participant is sent to once finished, after their events are stored; may hold {login_id}, {code} and the recruiting parameters ({PROLIFIC_PID}, {STUDY_ID}, {SESSION_ID}, {workerId}, {assignmentId}, {hitId}).",
      }),
    ),
    redirect_delay_s: Type.Optional(
      IntegerIn(0, 60, {
        default: REDIRECT_DELAY_DEFAULT_S,
        description:
          "Seconds the completion page shows the code, its copy button and a Return button before it goes to redirect_url (and only once the participant's last events are stored); 0 goes as soon as they are. A finished participant who comes back sees the page again.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type Completion = Static<typeof Completion>;
const Description = Type.String({ maxLength: 10000 });

/** api.md "Data quality and validity": every feed and related answer of every arm takes at least this long. */
const MinResponseMs = IntegerIn(0, 10_000, {
  description:
    "Milliseconds every feed and related answer of every arm takes at least (a faster arm is padded), so arms answer equally fast by design; null: no floor (docs/results.md)",
});

export const ExperimentCreate = Type.Object(
  { name: Name, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type ExperimentCreate = Static<typeof ExperimentCreate>;

const DefaultLanguage = Type.Unsafe<string>({
  ...LanguageTag,
  description:
    "The language of participants whose link and browser ask for none of `languages`; one of them (422 default_language_not_listed otherwise). Changing `languages` alone keeps it when it is still listed, else it becomes the first listed.",
});

const LanguageSwitch = Type.Boolean({
  description:
    "Participants may change their language during the study (PUT /api/v1/me/language; each change is recorded)",
});

export const ExperimentPatch = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    status: Type.Optional(ExperimentStatus),
    consent_text: Type.Optional(ConsentText),
    completion: Type.Optional(Type.Union([Completion, Type.Null()])),
    exclusion_rules: Type.Optional(ExclusionRules),
    min_response_ms: Type.Optional(Type.Union([MinResponseMs, Type.Null()])),
    languages: Type.Optional(Languages),
    default_language: Type.Optional(DefaultLanguage),
    language_switch: Type.Optional(LanguageSwitch),
    assignment: Type.Optional(Type.Union([Assignment, Type.Null()])),
    prolific: Type.Optional(
      Type.Union([ProlificLink, Type.Null()], {
        description:
          'The Prolific study its participants come from (api.md "Prolific (wave 4)"); null unlinks',
      }),
    ),
    schedule: Type.Optional(Schedule),
    reminders: Type.Optional(
      Type.Union([Reminders, Type.Null()], { description: "Reminders by e-mail; null: none" }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ExperimentPatch = Static<typeof ExperimentPatch>;

export const Experiment = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  status: ExperimentStatus,
  consent_text: Type.Union([LocalizedTextOf(Type.String(), "The consent text."), Type.Null()]),
  completion: Type.Union([Completion, Type.Null()]),
  exclusion_rules: ExclusionRules,
  min_response_ms: Type.Union([MinResponseMs, Type.Null()]),
  languages: Languages,
  default_language: DefaultLanguage,
  language_switch: LanguageSwitch,
  assignment: Assignment,
  prolific: Type.Union([ProlificLink, Type.Null()]),
  schedule: Schedule,
  reminders: Type.Union([Reminders, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Experiment = Static<typeof Experiment>;

/** What keeps an experiment from starting (`GET .../readiness`, and `experiment_not_ready`'s details). */
export const Readiness = Type.Object({
  ready: Type.Boolean(),
  problems: Type.Array(
    Type.Object({
      problem: Type.String(),
      message: Type.String(),
      group_id: Type.Optional(Type.String()),
      page: Type.Optional(Type.String()),
      key: Type.Optional(Type.String()),
      survey_id: Type.Optional(Type.String({ description: "missing_translation: the survey lacking them" })),
      fields: Type.Optional(
        Type.Array(Type.String(), {
          description:
            "missing_translation: the texts lacking a language (`consent_text`, `questions[0].text`)",
        }),
      ),
      languages: Type.Optional(
        Type.Array(Type.String(), { description: "missing_translation: the languages those texts lack" }),
      ),
    }),
  ),
});
export type Readiness = Static<typeof Readiness>;
export type ReadinessProblem = Readiness["problems"][number];
