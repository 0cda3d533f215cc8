import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { IntegerIn, NumberIn } from "./numbers.ts";

/**
 * How an experiment assigns newcomers to its arms (api.md "Assignment (wave 4)", docs/assignment.md).
 * Absent or null: `balanced` counting everyone who joined, the rule of every release before it.
 */
const ASSIGNMENT_METHODS = ["balanced", "blocked", "minimisation", "adaptive"] as const;

const ASSIGNMENT_COUNTS = ["joined", "consented", "finished"] as const;

const ADAPTIVE_METRICS = ["ctr", "completion_rate", "like_rate"] as const;

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

const Covariate = Type.Object(
  {
    source: literals(
      ["recruiting", "survey"],
      "recruiting: a parameter of the join link; survey: a single-choice question of the active pre survey",
    ),
    key: Type.String({
      minLength: 1,
      maxLength: 100,
      description: "The recruiting parameter's name, or the pre survey question's id",
    }),
  },
  { additionalProperties: false },
);

export const Assignment = Type.Object(
  {
    method: literals(
      ASSIGNMENT_METHODS,
      "balanced: the arm whose count lags its weight most; blocked: permuted blocks; minimisation: Pocock-Simon over covariates; adaptive: Thompson sampling on an arm metric",
    ),
    counts: Type.Optional(
      literals(
        ASSIGNMENT_COUNTS,
        "Which participants balance and caps count (default joined); finished counts finished participants plus those in progress who are not stale",
      ),
    ),
    stale_minutes: Type.Optional(
      IntegerIn(1, 1440, {
        description:
          "A participant who joined this many minutes ago and has sent no event stops counting until they send one",
      }),
    ),
    block_size: Type.Optional(
      IntegerIn(2, 100, {
        description: "blocked: slots per block, a multiple of the arms' integer weights' sum",
      }),
    ),
    covariates: Type.Optional(
      Type.Array(Covariate, {
        minItems: 1,
        maxItems: 10,
        description: "minimisation: what the arms are balanced on (a missing value is a level of its own)",
      }),
    ),
    random_element: Type.Optional(
      NumberIn(0.5, 1, {
        description: "minimisation: the chance of the arm that least increases imbalance (default 0.8)",
      }),
    ),
    metric: Type.Optional(literals(ADAPTIVE_METRICS, "adaptive: the arm metric Thompson sampling favours")),
    burn_in: Type.Optional(
      IntegerIn(0, 100_000, {
        description: "adaptive: participants every arm gets, balanced, before sampling starts (default 20)",
      }),
    ),
    floor: Type.Optional(
      NumberIn(0, 0.5, { description: "adaptive: no arm's probability goes below this (default 0.05)" }),
    ),
    seed: Type.Optional(
      IntegerIn(0, 2_147_483_647, {
        description: "Makes the random draws reproducible (without one they are unpredictable)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type Assignment = Static<typeof Assignment>;

const DEFAULT_ASSIGNMENT: Assignment = { method: "balanced", counts: "joined" };

/** What a participant keeps of their assignment (api.md: `assignment` on each participant). */
export const ParticipantAssignment = Type.Object({
  method: Type.Union([...ASSIGNMENT_METHODS.map((m) => Type.Literal(m)), Type.Literal("manual")]),
  probability: Nullable(
    Type.Number({
      description:
        "The chance, at that moment, that the method gave the participant the arm they got (null for a researcher's pre-registration)",
    }),
  ),
  covariates: Type.Optional(Type.Record(Type.String(), Nullable(Type.String()))),
  at: Timestamp,
});
export type ParticipantAssignment = Static<typeof ParticipantAssignment>;

/** `GET /api/v1/admin/experiments/{id}/balance`. */
export const Balance = Type.Object({
  method: literals([...ASSIGNMENT_METHODS], "The experiment's assignment method"),
  counts: literals([...ASSIGNMENT_COUNTS], "Which participants are counted"),
  arms: Type.Array(
    Type.Object({
      group_id: Uuid,
      name: Type.String(),
      counted: Type.Integer({ description: "Real participants the balance counts now" }),
      cap: Nullable(Type.Integer()),
      paused: Type.Boolean(),
      probability_now: Nullable(
        Type.Number({
          description:
            "The chance the next newcomer goes to this arm (null for minimisation, which depends on the newcomer)",
        }),
      ),
    }),
  ),
  covariates: Type.Array(
    Type.Object({
      source: Type.String(),
      key: Type.String(),
      arms: Type.Array(
        Type.Object({
          group_id: Uuid,
          n: Type.Integer(),
          mean: Type.Optional(Type.Number()),
          shares: Type.Optional(Type.Record(Type.String(), Type.Number())),
        }),
      ),
      smd_max: Nullable(
        Type.Number({ description: "The largest standardised mean difference between two arms" }),
      ),
    }),
  ),
});
export type Balance = Static<typeof Balance>;

/** An assignment with every default filled in (what answers show and what the server runs). */
export function assignmentInForce(
  a: Assignment | null | undefined,
): Required<Pick<Assignment, "method" | "counts">> & Assignment {
  const base = a ?? DEFAULT_ASSIGNMENT;
  return { ...base, counts: base.counts ?? "joined" };
}

/**
 * Whether the method assigns a newcomer only once they answer the pre survey: minimisation over a pre
 * survey's answer (api.md "Assignment (wave 4)"). Until then they have no arm.
 */
export const waitsForPreSurvey = (a: Assignment | null | undefined): boolean =>
  a?.method === "minimisation" && (a.covariates ?? []).some((c) => c.source === "survey");

/** The default block: twice the arms' weights' sum (each arm twice its weight), at most 100 slots. */
export function defaultBlockSize(weights: readonly number[]): number | null {
  if (!weights.every(Number.isInteger)) return null;
  const sum = weights.reduce((s, w) => s + w, 0);
  if (sum < 1) return null;
  return sum * 2 <= 100 ? sum * 2 : sum <= 100 ? sum : null;
}

export interface AssignmentProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * What is wrong with an assignment for arms of these weights (api.md: `invalid_assignment` when it can
 * be checked, and readiness refuses a start). `weights` empty: the arms are not known yet, only the
 * settings themselves are checked.
 */
export function assignmentProblems(a: Assignment, weights: readonly number[]): AssignmentProblem[] {
  const out: AssignmentProblem[] = [];
  if (a.method === "blocked" && weights.length > 0) {
    if (!weights.every(Number.isInteger))
      out.push({
        field: "assignment.method",
        message: `Permuted blocks need whole-number arm weights (these are ${weights.join(", ")}).`,
      });
    else {
      const sum = weights.reduce((s, w) => s + w, 0);
      const size = a.block_size ?? defaultBlockSize(weights);
      if (size === null || size % sum !== 0)
        out.push({
          field: "assignment.block_size",
          message: `A block's size must be a multiple of the arms' weights' sum (${sum}), from 2 to 100${size === null ? "" : `: ${size} is not`}.`,
        });
    }
  }
  if (a.method === "minimisation" && (a.covariates ?? []).length === 0)
    out.push({
      field: "assignment.covariates",
      message:
        "Minimisation balances on covariates: name at least one (a recruiting parameter or a pre survey question).",
    });
  if (a.method === "minimisation" && weights.length > 0 && !weights.every(Number.isInteger))
    out.push({
      field: "assignment.method",
      message: `Minimisation honours whole-number arm weights only (these are ${weights.join(", ")}).`,
    });
  const keys = (a.covariates ?? []).map((c) => `${c.source}:${c.key}`);
  if (new Set(keys).size < keys.length)
    out.push({ field: "assignment.covariates", message: "A covariate is named twice." });
  return out;
}
