import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Uuid } from "./common.ts";
import { NumberIn } from "./numbers.ts";

/**
 * Prolific's ids (studies, submissions, participants, participant groups, bonus payments): 24
 * hexadecimal characters on Prolific; any 1 to 64 letters and digits are accepted.
 */
const ProlificId = (description: string) => Type.String({ pattern: "^[A-Za-z0-9]{1,64}$", description });

/** The rejection categories Prolific accepts (its API reference, `rejection_category`). */
export const REJECTION_CATEGORIES = [
  "TOO_QUICKLY",
  "TOO_SLOWLY",
  "FAILED_INSTRUCTIONS",
  "INCOMP_LONGITUDINAL",
  "FAILED_CHECK",
  "LOW_EFFORT",
  "MALINGERING",
  "NO_CODE",
  "BAD_CODE",
  "NO_DATA",
  "UNSUPP_DEVICE",
  "OTHER",
] as const;

/** Prolific's rule: a rejection's message has at least this many characters. */
export const REJECTION_MESSAGE_MIN = 100;

/** The experiment's link to a Prolific study (api.md "Prolific (wave 4)"). */
export const ProlificLink = Type.Object(
  {
    study_id: ProlificId("The Prolific study's id"),
    on_finish: Type.Optional(
      Type.Union([Type.Literal("approve"), Type.Literal("review")], {
        default: "review",
        description:
          "approve: a participant who finishes and is not excluded by the rules is approved at once; review (the default): every submission waits for the researcher",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProlificLink = Static<typeof ProlificLink>;

/** One submission of the linked study beside its participant (`GET .../prolific/submissions`). */
export const ProlificSubmission = Type.Object({
  submission_id: Type.String(),
  participant_id: Type.String({ description: "Prolific's participant id (the join link's PROLIFIC_PID)" }),
  status: Type.String({
    description: "Prolific's word: ACTIVE, AWAITING REVIEW, APPROVED, REJECTED, RETURNED, ...",
  }),
  user_id: Nullable(Uuid, {
    description: "The Feedlab participant it matches; null when none joined with it",
  }),
  login_id: Nullable(Type.String()),
  finished: Type.Boolean(),
  excluded_by_rules: Type.Boolean(),
  excluded_by_hand: Type.Boolean({ description: "A researcher excluded the participant from analysis" }),
  rules: Type.Array(Type.String(), {
    description: "The exclusion rules that hold for the participant, in words",
  }),
  flags: Type.Array(Type.String(), { description: "The participant's quality flags" }),
  auto_approval: Nullable(
    Type.Object({
      state: Type.Union([Type.Literal("waiting"), Type.Literal("done"), Type.Literal("failed")]),
      attempts: Type.Integer(),
      last_error: Nullable(Type.String()),
    }),
    { description: "With on_finish approve: where the approval on finish stands" },
  ),
});
export type ProlificSubmission = Static<typeof ProlificSubmission>;

export const ProlificSubmissions = Type.Object({ items: Type.Array(ProlificSubmission) });
export type ProlificSubmissions = Static<typeof ProlificSubmissions>;

/** A call Feedlab sends (or, with `dry_run`, would send) to Prolific, without the token. */
export const ProlificCall = Type.Object({
  method: Type.String(),
  path: Type.String(),
  body: Type.Optional(Type.Unknown()),
});
export type ProlificCall = Static<typeof ProlificCall>;

const ReviewDecision = Type.Object(
  {
    submission_id: ProlificId("The submission"),
    action: Type.Union([Type.Literal("approve"), Type.Literal("reject"), Type.Literal("return")]),
    message: Type.Optional(
      Type.String({
        maxLength: 5000,
        description: `reject: the message the participant reads, at least ${REJECTION_MESSAGE_MIN} characters (Prolific's rule)`,
      }),
    ),
    rejection_category: Type.Optional(Type.String({ description: "reject: one of Prolific's categories" })),
    reasons: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
        minItems: 1,
        maxItems: 10,
        description:
          "return: sent as Prolific's request_return_reasons; default: the rules that excluded the participant",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ReviewBody = Type.Object(
  { decisions: Type.Array(ReviewDecision, { minItems: 1, maxItems: 1000 }) },
  { additionalProperties: false },
);
export type ReviewBody = Static<typeof ReviewBody>;

export const ReviewResults = Type.Object({
  results: Type.Array(
    Type.Object({
      submission_id: Type.String(),
      ok: Type.Boolean({ description: "Prolific accepted the decision" }),
      error: Type.Optional(Type.String()),
    }),
  ),
  calls: Type.Optional(Type.Array(ProlificCall, { description: "dry_run=true: what would be sent" })),
});
export type ReviewResults = Static<typeof ReviewResults>;

const Amount = NumberIn(0.01, 1000, {
  description: "In the study's currency units (for example 1.25); whole cents",
});

export const BonusesBody = Type.Union([
  Type.Object(
    {
      bonuses: Type.Array(
        Type.Object(
          { participant_id: ProlificId("Prolific's participant id"), amount: Amount },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 5000 },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      rule: Type.Object(
        {
          measure: Type.String({
            description: "A quality measure (api.md Data quality), e.g. watch_seconds",
          }),
          per_unit: NumberIn(0.0001, 1000, { description: "Paid per unit of the measure" }),
          max: NumberIn(0.01, 1000, { description: "The most one participant gets" }),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
]);
export type BonusesBody = Static<typeof BonusesBody>;

export const BonusPlan = Type.Object({
  id: Uuid,
  count: Type.Integer(),
  total: Type.Number({ description: "The bonuses' sum, in the study's currency units" }),
  status: Type.Union(
    [Type.Literal("created"), Type.Literal("paying"), Type.Literal("paid"), Type.Literal("unknown")],
    {
      description:
        "created: set up on Prolific, not paid; paying: the pay request is on its way; paid: Prolific accepted it; unknown: a pay request was sent and its answer lost (check on Prolific)",
    },
  ),
  bonuses: Type.Array(Type.Object({ participant_id: Type.String(), amount: Type.Number() })),
  prolific_id: Nullable(Type.String()),
  created_at: Type.String(),
  paid_at: Nullable(Type.String()),
});
export type BonusPlan = Static<typeof BonusPlan>;

export const GroupsBody = Type.Object(
  {
    participant_group_id: ProlificId("The Prolific participant group"),
    who: Type.Union([Type.Literal("finished"), Type.Literal("included")], {
      description:
        "finished: every finished participant; included: finished and excluded neither by the rules nor by hand",
    }),
  },
  { additionalProperties: false },
);
export type GroupsBody = Static<typeof GroupsBody>;

export const GroupsResult = Type.Object({
  added: Type.Integer({ description: "Participant ids Prolific accepted" }),
  calls: Type.Optional(Type.Array(ProlificCall)),
});
export type GroupsResult = Static<typeof GroupsResult>;

export const DryRunQuery = Type.Object(
  {
    dry_run: Type.Optional(
      Type.Boolean({ description: "true: answer the calls Feedlab would send to Prolific, and send none" }),
    ),
  },
  { additionalProperties: false },
);
export type DryRunQuery = Static<typeof DryRunQuery>;
