import { type Static, Type } from "@sinclair/typebox";
import { EVENT_TYPES } from "../events/types.ts";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { INT32_MAX, IntegerIn } from "./numbers.ts";
import { Rate } from "./stats.ts";

/** api.md "Simulated participants": how many per arm, in a browser or over HTTP, and the seed. */
export const DryRunCreate = Type.Object(
  {
    participants_per_arm: Type.Optional(
      IntegerIn(1, 50, { default: 3, description: "Simulated participants per arm" }),
    ),
    browser: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "true: through the real participant pages in headless Chromium; false: the same behaviour over HTTP with the real event contract and batching (no page errors, layouts or accessibility checks)",
      }),
    ),
    seed: Type.Optional(
      IntegerIn(0, INT32_MAX, {
        description: "Seeds every participant's behaviour; the same seed and study give the same decisions",
      }),
    ),
  },
  { additionalProperties: false },
);
export type DryRunCreate = Static<typeof DryRunCreate>;

/** What went wrong, in words a researcher reads (kinds are stable codes). */
const DRY_RUN_PROBLEM_KINDS = [
  "page_error",
  "request_failed",
  "empty_feed",
  "empty_related",
  "layout_fallback",
  "survey_out_of_order",
  "survey_over_playback",
  "completion_not_reached",
  "redirect_placeholder",
  "events_not_stored",
  "events_rejected",
  "missing_event_types",
  "accessibility",
] as const;

export const DryRunProblem = Type.Object({
  participant: Type.String({ description: "The simulated participant's login id (sim-...)" }),
  user_id: Nullable(Uuid),
  page: Type.String({
    description: "Where it happened: feed, watch, survey, consent, completion, or a path",
  }),
  kind: Type.Union(DRY_RUN_PROBLEM_KINDS.map((k) => Type.Literal(k))),
  message: Type.String(),
});
export type DryRunProblem = Static<typeof DryRunProblem>;

const EventTypeName = Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)));

export const DryRunArm = Type.Object({
  group_id: Uuid,
  name: Type.String(),
  participants: Type.Integer({ description: "Simulated participants who joined this arm" }),
  finished: Type.Integer({ description: "Of them, those whose study reached its completion" }),
  declined: Type.Integer({ description: "Of them, those who declined the consent text (by design)" }),
  ctr: { ...Rate, description: "Feed clicks over feed impressions, with its 95% interval over participants" },
  served_by_model: Nullable(
    Type.Number({
      description:
        "learned_model arms: the share of feed pages the model served rather than its popularity fallback",
    }),
  ),
  first_card_ms: Nullable(Type.Object({ p50: Type.Number(), max: Type.Number() })),
  surveys: Type.Array(Type.Object({ name: Type.String(), kind: Type.String() }), {
    description: "The surveys shown, in the order the first participant met them",
  }),
  completion_redirect: Nullable(Type.String({ description: "One participant's filled completion URL" })),
  completion_not_tested: Nullable(
    Type.String({
      description:
        "Why the completion (and its return link) was never reached by this arm's simulated participants, so the report cannot say it works: a rule of minutes on the pages the run does not wait for, a study that ends when the researcher completes it, every participant declining. null when a participant reached it, or when not reaching it is one of the arm's problems (completion_not_reached)",
    }),
  ),
  event_types: Type.Array(EventTypeName, { description: "Event types that arrived" }),
  missing_event_types: Type.Array(EventTypeName, {
    description: "Types this arm's journey should have produced (the contract's catalog) that never arrived",
  }),
  problems: Type.Array(DryRunProblem),
});
export type DryRunArm = Static<typeof DryRunArm>;

export const DryRunStatus = Type.Union([
  Type.Literal("queued"),
  Type.Literal("running"),
  Type.Literal("done"),
  Type.Literal("failed"),
]);
export type DryRunStatus = Static<typeof DryRunStatus>;

export const DryRun = Type.Object({
  id: Uuid,
  experiment_id: Uuid,
  status: DryRunStatus,
  browser: Type.Boolean(),
  participants_per_arm: Type.Integer(),
  seed: Type.Integer(),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  ok: Nullable(Type.Boolean({ description: "true when no arm has a problem; null until done" })),
  error: Nullable(Type.String({ description: "Why a failed run stopped" })),
  warnings: Type.Array(Type.String(), {
    description:
      "What the run could not check and why (a completion rule that needs more time than the budget)",
  }),
  arms: Type.Array(DryRunArm),
});
export type DryRun = Static<typeof DryRun>;
