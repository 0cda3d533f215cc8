import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { RUN_STATUSES, RUN_TRIGGERS } from "./enums.ts";

const stringEnum = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>({ type: "string", enum: [...values], description });

const Rate = Nullable(Type.Number({ minimum: 0, maximum: 1 }));

/** Offline evaluation and make-up of a run (null until a run succeeded). */
const ModelMetrics = Type.Object(
  {
    recall_at_10: Type.Union([Rate], {
      description:
        "Leave-last-out recall@10: the share of test participants whose latest interaction (by last_at, held out) is in their top 10. Null when nobody could be tested.",
    }),
    ndcg_at_10: Type.Union([Rate], {
      description: "Leave-last-out NDCG@10 (one held-out video: 1/log2(rank+1))",
    }),
    baseline_recall_at_10: Type.Union([Rate], {
      description: "The popularity baseline (videos by training participants) on the same split",
    }),
    baseline_ndcg_at_10: Type.Union([Rate], { description: "The popularity baseline's NDCG@10" }),
    test_users: Type.Integer({
      description: "Participants tested (a seeded sample of at most 10,000 of the eligible)",
    }),
    eligible_users: Type.Integer({
      description: "Participants with two or more interactions whose latest one is a pool video",
    }),
    train_interactions: Type.Integer({ description: "Interactions the held-out model was trained on" }),
    factors: Type.Integer(),
    iterations: Type.Integer(),
    regularization: Type.Number(),
    alpha: Type.Number({ description: "Confidence per unit of weight: c = 1 + alpha * weight" }),
    seed: Type.Integer(),
    workers: Type.Integer({ description: "Worker threads used (0: the trainer's own thread)" }),
    recommendations: Type.Integer({ description: "recommendation_cache rows written" }),
    similarities: Type.Integer({ description: "item_similarity rows written" }),
    evaluation_note: Type.Optional(Type.String()),
    timings_ms: Type.Record(Type.String(), Type.Number(), {
      description:
        "Duration of each step in ms: freshness, extract, metadata, split, train_evaluation_model, evaluate, train, recommend, similarity, write, total",
    }),
  },
  { additionalProperties: true },
);

export const ModelRun = Type.Object({
  id: Uuid,
  experiment_id: Uuid,
  status: stringEnum(
    RUN_STATUSES,
    "queued (requested, waiting for the trainer), running, succeeded, failed (see error) or skipped (see skipped_reason)",
  ),
  trigger: stringEnum(RUN_TRIGGERS, "schedule (FEEDLAB_TRAIN_INTERVAL_S) or manual (POST .../models/train)"),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  interactions: Nullable(Type.Integer({ description: "(participant, video) pairs trained on" })),
  users: Nullable(Type.Integer({ description: "Participants with at least one interaction" })),
  videos: Nullable(
    Type.Integer({ description: "Videos of the model: the pool and any other video interacted with" }),
  ),
  watermark: Nullable(
    Type.String({
      format: "date-time",
      description: "Newest receive time of the interactions the run saw (the freshness watermark)",
    }),
  ),
  metrics: Nullable(ModelMetrics),
  skipped_reason: Nullable(Type.String()),
  error: Nullable(Type.String()),
});
export type ModelRun = Static<typeof ModelRun>;

export const ModelRunsQuery = Type.Object({
  limit: Type.Integer({
    minimum: 1,
    maximum: 500,
    default: 50,
    description: "Newest runs returned (default 50)",
  }),
});

export const TrainAccepted = Type.Object({ run_id: Uuid });
export type TrainAccepted = Static<typeof TrainAccepted>;
