import { type Static, Type } from "@sinclair/typebox";
import { SURVEY_KINDS } from "../surveys/shape.ts";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { LocalizedTextOf } from "./localized-text.ts";
import { IntegerIn, NumberIn } from "./numbers.ts";

export * from "../surveys/answers.ts";
export * from "../surveys/attention.ts";
export * from "../surveys/shape.ts";

/**
 * Limits api.md leaves open ("maximum number of questions or options per survey: not shown"), chosen
 * generously for questionnaires and small enough that a survey stays one comfortable JSON document.
 */
const SURVEY_LIMITS = {
  questions: 200,
  optionsPerQuestion: 100,
  idLength: 100,
  questionTextLength: 2000,
  optionTextLength: 1000,
  textInputLength: 10_000,
  /**
   * Largest magnitude of an option's value: past any coding scheme, and the sum of a study's answers
   * stays exact in a double.
   */
  optionValue: 1_000_000_000,
  /** The longest a survey form may have been open: a day (api.md: `duration_ms` 0..86,400,000). */
  durationMs: 86_400_000,
} as const;

/** Text without NUL characters, which PostgreSQL cannot store (a 422 instead of a 500). */
const Text = (maxLength: number, extra: { minLength?: number; description?: string } = {}) =>
  Type.String({ maxLength, pattern: "^[^\\u0000]*$", ...extra });

export const SurveyKind = Type.Union(
  SURVEY_KINDS.map((k) => Type.Literal(k)),
  { description: "pre, post or inter_session (at most 20 characters). Fixed after creation." },
);
export type SurveyKind = Static<typeof SurveyKind>;

export const QuestionType = Type.Union([Type.Literal("single"), Type.Literal("multi"), Type.Literal("text")]);
export type QuestionType = Static<typeof QuestionType>;

/** An option as a researcher writes it: its text in one or several languages. */
const OptionInput = Type.Object(
  {
    id: Text(SURVEY_LIMITS.idLength),
    text: LocalizedTextOf(Text(SURVEY_LIMITS.optionTextLength), "The option's text."),
    value: NumberIn(-SURVEY_LIMITS.optionValue, SURVEY_LIMITS.optionValue, {
      description: "Analyst-defined numeric coding (Likert, ordinal; nominal may use 0).",
    }),
  },
  { additionalProperties: false },
);

/** An option as participants read it, and as responses keep it: its text in their language. */
export const AnswerOption = Type.Object(
  {
    id: Text(SURVEY_LIMITS.idLength),
    text: Text(SURVEY_LIMITS.optionTextLength),
    value: NumberIn(-SURVEY_LIMITS.optionValue, SURVEY_LIMITS.optionValue, {
      description: "Analyst-defined numeric coding (Likert, ordinal; nominal may use 0).",
    }),
  },
  { additionalProperties: false },
);
export type AnswerOption = Static<typeof AnswerOption>;

const OptionValue = NumberIn(-SURVEY_LIMITS.optionValue, SURVEY_LIMITS.optionValue);

/**
 * The answer an attentive participant gives (api.md, Data quality and validity), by option value:
 * checked on save against the question's own options (`checkAttentionAnswers`, 422 `invalid_survey`).
 */
const AttentionAnswerField = Type.Optional(
  Nullable(
    Type.Union([OptionValue, Type.Array(OptionValue, { maxItems: SURVEY_LIMITS.optionsPerQuestion })], {
      description:
        "Makes the question an attention check: single, the value of the option an attentive participant chooses; multi, the list of values they tick (all of them, nothing else); null or absent, no check. Never sent to participants.",
    }),
  ),
);

/** A count of options to choose: at most as many as a question may have. */
const SelectCount = (description: string) => IntegerIn(0, SURVEY_LIMITS.optionsPerQuestion, { description });

/** A question as sent by the admin. Shape rules (per type) are checked after this, as `invalid_survey`. */
const QuestionInput = Type.Object(
  {
    id: Text(SURVEY_LIMITS.idLength),
    text: LocalizedTextOf(Text(SURVEY_LIMITS.questionTextLength), "The question's text."),
    type: QuestionType,
    minSelect: Type.Optional(Nullable(SelectCount("multi only: fewest options to choose"))),
    maxSelect: Type.Optional(
      Nullable(SelectCount("multi only: most options to choose; 0 means no upper bound")),
    ),
    answers: Type.Array(OptionInput, {
      maxItems: SURVEY_LIMITS.optionsPerQuestion,
      default: [],
      description: "Options: at least one for single and multi, none for text.",
    }),
    required: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "false lets the participant skip the question (left out, or sent empty); not stored then.",
      }),
    ),
    attention_answer: AttentionAnswerField,
  },
  { additionalProperties: false },
);

const StoredText = LocalizedTextOf(Type.String(), "");
export const Question = Type.Object({
  id: Type.String(),
  text: StoredText,
  type: QuestionType,
  minSelect: Nullable(Type.Integer()),
  maxSelect: Nullable(Type.Integer()),
  answers: Type.Array(Type.Object({ id: Type.String(), text: StoredText, value: Type.Number() })),
  required: Type.Boolean(),
  attention_answer: Type.Optional(
    Nullable(
      Type.Union([Type.Number(), Type.Array(Type.Number())], { description: "Present on attention checks" }),
    ),
  ),
});
export type Question = Static<typeof Question>;

/**
 * A question as participants receive it: its texts in their language, without the answer an attention
 * check expects.
 */
const ParticipantQuestion = Type.Composite([
  Type.Omit(Question, ["attention_answer", "text", "answers"]),
  Type.Object({ text: Type.String(), answers: Type.Array(AnswerOption) }),
]);
export type ParticipantQuestion = Static<typeof ParticipantQuestion>;

const SurveyName = LocalizedTextOf(Text(255, { minLength: 1 }), "The survey's name.");
/** A survey's questions as an admin writes them (the console, and study documents). */
export const Questions = Type.Array(QuestionInput, { maxItems: SURVEY_LIMITS.questions });

export const SurveyCreate = Type.Object(
  {
    kind: SurveyKind,
    name: SurveyName,
    questions: Questions,
    is_active: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type SurveyCreate = Static<typeof SurveyCreate>;

export const SurveyUpdate = Type.Object(
  {
    name: SurveyName,
    questions: Questions,
    kind: Type.Optional(
      Type.String({
        maxLength: 100,
        description: "Optional; must equal the stored kind (422 kind_immutable).",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SurveyUpdate = Static<typeof SurveyUpdate>;

export const Survey = Type.Object({
  id: Uuid,
  experiment_id: Uuid,
  kind: SurveyKind,
  name: StoredText,
  is_active: Type.Boolean(),
  questions: Type.Array(Question),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Survey = Static<typeof Survey>;

/** A survey as participants receive it (pending surveys): attention checks do not show their answer. */
export const ParticipantSurvey = Type.Composite([
  Type.Omit(Survey, ["questions", "name"]),
  Type.Object({ name: Type.String(), questions: Type.Array(ParticipantQuestion) }),
]);
export type ParticipantSurvey = Static<typeof ParticipantSurvey>;

/** A survey as the admin API shows it: with its question and response counts. */
export const AdminSurvey = Type.Composite([
  Survey,
  Type.Object({
    question_count: Type.Integer(),
    response_count: Type.Integer(),
    dismissal_count: Type.Integer({ description: "Times a participant closed the survey without answering" }),
  }),
]);
export type AdminSurvey = Static<typeof AdminSurvey>;

export const PendingQuery = Type.Object({ session_id: Uuid });
export type PendingQuery = Static<typeof PendingQuery>;

export const PendingSurvey = Nullable(
  Type.Object({
    survey: ParticipantSurvey,
    forced: Type.Boolean({ description: "true for pre surveys: the page stays unmounted until submitted" }),
    about_session_id: Nullable(Uuid),
  }),
);
export type PendingSurvey = Static<typeof PendingSurvey>;

export const AnswerInput = Type.Object(
  {
    questionId: Text(SURVEY_LIMITS.idLength),
    selections: Type.Array(Text(SURVEY_LIMITS.idLength), {
      maxItems: SURVEY_LIMITS.optionsPerQuestion,
      default: [],
      description: "Option ids; empty for text questions.",
    }),
    textInput: Type.Optional(
      Nullable(
        Text(SURVEY_LIMITS.textInputLength, { description: "The written answer of a text question." }),
      ),
    ),
  },
  { additionalProperties: false },
);

export type AnswerInput = Static<typeof AnswerInput>;

export const ResponseCreate = Type.Object(
  {
    session_id: Uuid,
    about_session_id: Type.Optional(
      Nullable(
        Type.String({
          format: "uuid",
          description:
            "inter_session: required, one of the participant's own sessions (else 422 invalid_answers). pre and post: ignored, stored as null.",
        }),
      ),
    ),
    answers: Type.Array(AnswerInput, { maxItems: SURVEY_LIMITS.questions }),
    duration_ms: Type.Optional(
      Nullable(
        IntegerIn(0, SURVEY_LIMITS.durationMs, {
          description:
            "How long the form was open, in milliseconds, measured by the participant page (from the form shown to submit); null or absent when not measured.",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type ResponseCreate = Static<typeof ResponseCreate>;

const Answer = Type.Object({
  questionId: Type.String(),
  questionText: Type.String({ description: "Snapshot of the question text at submission time" }),
  selections: Type.Array(AnswerOption, { description: "Snapshots of the chosen options; empty for text" }),
  textInput: Nullable(Type.String()),
});

export const SurveyResponse = Type.Object({
  id: Uuid,
  survey_id: Uuid,
  user_id: Uuid,
  about_session_id: Nullable(Uuid),
  answers: Type.Array(Answer),
  duration_ms: Nullable(Type.Integer({ description: "How long the form was open (ms); null when not sent" })),
  created_at: Timestamp,
});
export type SurveyResponse = Static<typeof SurveyResponse>;
