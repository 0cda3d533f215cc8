import { type Static, Type } from "@sinclair/typebox";
import { Nullable } from "./common.ts";
import { IntegerIn, NumberIn } from "./numbers.ts";

/** The rates a power analysis can be asked about: the rates of `/stats`. */
const POWER_METRICS = ["ctr", "completion_rate", "like_rate"] as const;
export type PowerMetric = (typeof POWER_METRICS)[number];

/** `GET /api/v1/admin/experiments/{id}/power`'s query (api.md "Data quality and validity"). */
export const PowerQuery = Type.Object({
  metric: Type.Unsafe<PowerMetric>({
    type: "string",
    enum: [...POWER_METRICS],
    description: "The rate compared between two arms, as /stats computes it",
  }),
  effect: NumberIn(0.0001, 1, {
    description:
      "The absolute difference in the rate to detect (0.02: from 10% to 12%); the test is two-sided, so a decrease of the same size needs the same participants (give the lower rate as baseline)",
  }),
  alpha: Type.Optional(NumberIn(0.0001, 0.5, { default: 0.05, description: "Two-sided significance level" })),
  power: Type.Optional(
    NumberIn(0.5, 0.9999, {
      default: 0.8,
      description: "The share of studies that should detect the effect",
    }),
  ),
  baseline: Type.Optional(
    NumberIn(0, 1, {
      description: "Assumed rate of the control arm; with icc, the closed form is used instead of pilot data",
    }),
  ),
  icc: Type.Optional(
    NumberIn(0, 1, {
      description: "Assumed intra-participant correlation of the rate's events; given together with baseline",
    }),
  ),
  impressions_per_participant: Type.Optional(
    NumberIn(1, 100_000, {
      description:
        "Mean denominator units per participant (impressions for ctr, plays for the others); default 50 impressions or 10 plays. Used with baseline and icc",
    }),
  ),
  seed: Type.Optional(
    IntegerIn(0, 4_294_967_295, {
      default: 1,
      description: "Seed of the resampling (same seed, same answer)",
    }),
  ),
});
export type PowerQuery = Static<typeof PowerQuery>;

const PowerPoint = Type.Object({
  participants_per_arm: Type.Integer(),
  power: Type.Number(),
});

/** api.md: `GET /api/v1/admin/experiments/{id}/power`. */
export const PowerResult = Type.Object({
  metric: Type.Unsafe<PowerMetric>({ type: "string", enum: [...POWER_METRICS] }),
  method: Type.Unsafe<"resampling" | "assumed">({
    type: "string",
    enum: ["resampling", "assumed"],
    description:
      "assumed: the closed form with the given baseline and icc; resampling: the study's own real participants, resampled",
  }),
  baseline: Type.Number({ description: "The control arm's rate: given, or the pilot's pooled rate" }),
  effect: Type.Number(),
  icc: Type.Number({ description: "Given, or the pilot's ANOVA estimate (docs/power.md)" }),
  alpha: Type.Number(),
  power: Type.Number({ description: "The power asked for" }),
  impressions_per_participant: Type.Number({
    description: "Mean denominator units per participant: given, the default, or the pilot's mean",
  }),
  design_effect: Type.Number({
    description:
      "Variance inflation from counting a participant's events together: 1 + (M - 1) icc, or with the pilot's unequal sizes 1 + ((1 + CV²) M - 1) icc",
  }),
  per_arm_needed: Nullable(
    Type.Integer({
      description:
        "Participants per arm for the asked power; null when resampling finds more than 20,000 per arm needed (the curve's closed form still shows where it lies)",
    }),
  ),
  participants_per_arm_now: Type.Integer({
    description: "Real analysed participants of the experiment's smallest arm",
  }),
  power_now: Nullable(Type.Number({ description: "Power at participants_per_arm_now; null with none" })),
  curve: Type.Array(PowerPoint, {
    description:
      "Power against participants per arm from the closed form with this answer's baseline, effect and design effect, for the plot",
  }),
  simulated: Type.Array(PowerPoint, {
    description: "Resampling: the sizes the search simulated and their power (empty when assumed)",
  }),
});
export type PowerResult = Static<typeof PowerResult>;
