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
 * The flags, each a measure past its threshold (docs/quality.md gives the reasons). A flag marks a
 * participant for a look; only the researcher's exclusions and the experiment's rules exclude.
 */
export const QUALITY_FLAGS = {
  low_active_time: "active_seconds under 60",
  hidden_tab: "hidden_share over 0.5",
  watched_hidden: "visible_watch_seconds under half of watch_seconds (with 10 or more watch_seconds)",
  no_pointer: "no MOUSE_MOVEMENT on a desktop viewport (wider than 1024 px)",
  speeding: "seconds_per_question under 2",
  straight_lined: "straight_lined is true",
  failed_attention_check: "attention_failed 1 or more",
  duplicate_recruiting_id: "duplicate_recruiting_id is true",
} as const;
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
  group_id: Uuid,
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
