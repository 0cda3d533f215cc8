import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Uuid } from "./common.ts";
import { NumberIn } from "./numbers.ts";

/**
 * Participant quality (issue 37, api.md "Data quality and validity"): measures per participant, read
 * from the events and survey responses, each with a flag past its documented threshold
 * (docs/quality.md), and the experiment's pre-registered exclusion rules over them.
 */

/** The measures a rule can name, and what each is. */
export const QUALITY_MEASURES = {
  active_seconds: "Seconds the study's pages were visible and focused",
  visible_watch_seconds: "Seconds of playback while the page was visible",
  watch_seconds: "Seconds of playback, wall clock, visible or not",
  hidden_share: "The share of the visit (first to last event) the tab was hidden, 0 to 1",
  pointer_events: "MOUSE_MOVEMENT events",
  seconds_per_question:
    "Survey seconds per question: the responses' duration_ms over their questions (null without a timed response)",
  straight_lined:
    "A survey's single-choice items sharing one answer scale (5 or more, attention checks aside) all answered alike",
  attention_passed: "Attention-check questions answered as the attentive answer",
  attention_failed: "Attention-check questions answered otherwise",
  duplicate_recruiting_id:
    "The participant's PROLIFIC_PID or workerId appears under another login of the experiment",
} as const;
export type QualityMeasure = keyof typeof QUALITY_MEASURES;
export const QUALITY_MEASURE_NAMES = Object.keys(QUALITY_MEASURES) as QualityMeasure[];

/**
 * The thresholds of the flags, in one place (docs/quality.md gives the reasons): a flag marks a
 * participant past one of them.
 */
export const QUALITY_THRESHOLDS = {
  /** low_active_time: fewer active seconds than this (a minute on the study's pages). */
  min_active_seconds: 60,
  /** hidden_tab: a larger share of the visit hidden than this. */
  max_hidden_share: 0.5,
  /** watched_hidden: visible playback under this share of all playback... */
  min_visible_watch_share: 0.5,
  /** ...once there are at least this many seconds of playback. */
  min_watch_seconds: 10,
  /** no_pointer: a viewport wider than this counts as a desktop. */
  desktop_viewport_px: 1024,
  /** speeding: fewer survey seconds per question than this. */
  min_seconds_per_question: 2,
  /** failed_attention_check: more failed checks than this. */
  max_attention_failed: 0,
} as const;

/**
 * The flags, each a measure past its threshold (docs/quality.md gives the reasons). A flag marks a
 * participant for a look; only the researcher's exclusions and the experiment's rules exclude.
 */
export const QUALITY_FLAGS = {
  low_active_time: `active_seconds under ${QUALITY_THRESHOLDS.min_active_seconds}, for a participant who visited the pages`,
  hidden_tab: `hidden_share over ${QUALITY_THRESHOLDS.max_hidden_share}`,
  watched_hidden: `visible_watch_seconds under ${QUALITY_THRESHOLDS.min_visible_watch_share} of watch_seconds (with ${QUALITY_THRESHOLDS.min_watch_seconds} or more watch_seconds)`,
  no_pointer: `no MOUSE_MOVEMENT on a desktop viewport (wider than ${QUALITY_THRESHOLDS.desktop_viewport_px} px)`,
  speeding: `seconds_per_question under ${QUALITY_THRESHOLDS.min_seconds_per_question}`,
  straight_lined: "straight_lined is true",
  failed_attention_check: `attention_failed ${QUALITY_THRESHOLDS.max_attention_failed + 1} or more`,
  duplicate_recruiting_id: "duplicate_recruiting_id is true",
} as const;

/** The readable name of each flag, as the console's badges show it. */
export const QUALITY_FLAG_LABELS: Readonly<Record<QualityFlag, string>> = {
  low_active_time: "Little active time",
  hidden_tab: "Tab mostly hidden",
  watched_hidden: "Watched while hidden",
  no_pointer: "No pointer on desktop",
  speeding: "Sped through surveys",
  straight_lined: "Straight-lined",
  failed_attention_check: "Failed attention check",
  duplicate_recruiting_id: "Duplicate recruiting ID",
};

/**
 * Which flags a participant's measures raise, in QUALITY_FLAGS order (docs/quality.md). A null measure
 * (no timed survey, no visit, no known viewport) raises no flag.
 */
export function qualityFlags(m: {
  readonly active_seconds: number;
  readonly visible_watch_seconds: number;
  readonly watch_seconds: number;
  readonly hidden_share: number | null;
  readonly pointer_events: number;
  readonly viewport_width: number | null;
  readonly seconds_per_question: number | null;
  readonly straight_lined: boolean;
  readonly attention: { readonly failed: number };
  readonly duplicate_recruiting_id: boolean;
}): QualityFlag[] {
  const t = QUALITY_THRESHOLDS;
  const raised: Record<QualityFlag, boolean> = {
    // A participant who joined and never visited the pages (no visit: no hidden share) has no time
    // to judge yet: the flag is for a visit that was too short.
    low_active_time: m.hidden_share !== null && m.active_seconds < t.min_active_seconds,
    hidden_tab: m.hidden_share !== null && m.hidden_share > t.max_hidden_share,
    watched_hidden:
      m.watch_seconds >= t.min_watch_seconds &&
      m.visible_watch_seconds < t.min_visible_watch_share * m.watch_seconds,
    no_pointer:
      m.viewport_width !== null && m.viewport_width > t.desktop_viewport_px && m.pointer_events === 0,
    speeding: m.seconds_per_question !== null && m.seconds_per_question < t.min_seconds_per_question,
    straight_lined: m.straight_lined,
    failed_attention_check: m.attention.failed > t.max_attention_failed,
    duplicate_recruiting_id: m.duplicate_recruiting_id,
  };
  return QUALITY_FLAG_NAMES.filter((f) => raised[f]);
}
export type QualityFlag = keyof typeof QUALITY_FLAGS;
export const QUALITY_FLAG_NAMES = Object.keys(QUALITY_FLAGS) as QualityFlag[];

const Measure = Type.Unsafe<QualityMeasure>({
  type: "string",
  enum: QUALITY_MEASURE_NAMES,
  description: "A measure of participant quality (docs/quality.md)",
});

/** One pre-registered exclusion rule: a participant for whom it holds is excluded by the rules. */
export const ExclusionRule = Type.Object(
  {
    measure: Measure,
    op: Type.Unsafe<"<" | "<=" | ">" | ">=" | "==">({ type: "string", enum: ["<", "<=", ">", ">=", "=="] }),
    value: Type.Union([NumberIn(-1e9, 1e9), Type.Boolean()], {
      description: "A number, or true/false for straight_lined and duplicate_recruiting_id",
    }),
  },
  { additionalProperties: false },
);
export type ExclusionRule = Static<typeof ExclusionRule>;

export const ExclusionRules = Type.Array(ExclusionRule, {
  maxItems: 20,
  description:
    "Pre-registered exclusion rules (api.md): a participant is excluded by the rules when any rule holds for them; a measure that is null (no timed survey, say) never holds",
});

/** The measures of one participant, as `GET .../quality` answers them. */
export const ParticipantQuality = Type.Object({
  user_id: Uuid,
  login_id: Type.String(),
  group_id: Nullable(Uuid, { description: "Null until assigned (api.md, Assignment)" }),
  active_seconds: Type.Number({ description: QUALITY_MEASURES.active_seconds }),
  visible_watch_seconds: Type.Number({ description: QUALITY_MEASURES.visible_watch_seconds }),
  watch_seconds: Type.Number({ description: QUALITY_MEASURES.watch_seconds }),
  hidden_share: Nullable(Type.Number({ description: QUALITY_MEASURES.hidden_share })),
  pointer_events: Type.Integer({ description: QUALITY_MEASURES.pointer_events }),
  viewport_width: Nullable(
    Type.Integer({ description: "The widest viewport of the participant's sessions" }),
  ),
  seconds_per_question: Nullable(Type.Number({ description: QUALITY_MEASURES.seconds_per_question })),
  straight_lined: Type.Boolean({ description: QUALITY_MEASURES.straight_lined }),
  attention: Type.Object({
    passed: Type.Integer({ description: QUALITY_MEASURES.attention_passed }),
    failed: Type.Integer({ description: QUALITY_MEASURES.attention_failed }),
  }),
  duplicate_recruiting_id: Type.Boolean({ description: QUALITY_MEASURES.duplicate_recruiting_id }),
  flags: Type.Array(Type.Unsafe<QualityFlag>({ type: "string", enum: QUALITY_FLAG_NAMES })),
  excluded_by_rules: Type.Boolean({ description: "Any of the experiment's exclusion rules holds" }),
});
export type ParticipantQuality = Static<typeof ParticipantQuality>;

/** One group of `GET .../quality`: its participants, how many are flagged and how many the rules exclude. */
const QualityGroup = Type.Object({
  group_id: Uuid,
  name: Type.String(),
  participants: Type.Integer(),
  flagged: Type.Integer({ description: "Participants with one flag or more" }),
  excluded_by_rules: Type.Integer({ description: "Participants for whom an exclusion rule holds" }),
});

/** `GET /api/v1/admin/experiments/{id}/quality` (api.md "Data quality and validity"). */
export const ExperimentQuality = Type.Object({
  groups: Type.Array(QualityGroup),
  participants: Type.Array(ParticipantQuality, { description: "One page, in join order" }),
  next_cursor: Nullable(Type.String({ description: "Pass as `cursor` for the next page; null on the last" })),
  total: Type.Integer({ description: "Participants matching the filters, over all pages" }),
});
export type ExperimentQuality = Static<typeof ExperimentQuality>;

export const QualityQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: "`next_cursor` of the previous page" })),
  flagged: Type.Optional(Type.Boolean({ description: "true keeps the participants with a flag" })),
  user_id: Type.Optional(Uuid),
  // participants.ts's IncludeSimulated, spelled out: importing it would close an import circle
  // (participants -> experiments -> quality).
  include_simulated: Type.Optional(
    Type.Boolean({
      default: false,
      description: "true includes simulated participants (dry runs), which are left out by default",
    }),
  ),
});
export type QualityQuery = Static<typeof QualityQuery>;

/** A change of an experiment's exclusion rules: who made it, when, in which state, before and after. */
export const RuleChange = Type.Object({
  at: Type.String({ format: "date-time" }),
  admin: Nullable(Type.String()),
  status: Type.String({ description: "The experiment's status when the rules were changed" }),
  before: Type.Array(ExclusionRule),
  after: Type.Array(ExclusionRule),
});
export type RuleChange = Static<typeof RuleChange>;

/** What `/stats?exclusions=rules` says of the rules, beside the arms. */
export const RulesApplied = Type.Object({
  rules: Type.Array(ExclusionRule),
  balance: Type.Object(
    {
      chi_square: Nullable(Type.Number()),
      p_value: Nullable(Type.Number()),
      unequal: Type.Boolean({
        description: "The rules excluded a different share in different arms (p < 0.05)",
      }),
    },
    {
      description:
        "Pearson's chi-square test of independence of arm and exclusion by the rules; null parts with fewer than two arms, or when the rules excluded no one or everyone",
    },
  ),
  changes: Type.Array(RuleChange, {
    description:
      "Every change of the rules, oldest first; those made while running are shown on the results page",
  }),
});
export type RulesApplied = Static<typeof RulesApplied>;
