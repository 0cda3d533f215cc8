import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp, Uuid } from "./common.ts";

/** A rate with its 95% interval; null parts when its denominator is 0 (or, for the interval, one participant). */
export const Rate = Type.Object({
  value: Nullable(Type.Number()),
  low: Nullable(Type.Number()),
  high: Nullable(Type.Number()),
});
export type Rate = Static<typeof Rate>;

const counts = {
  impressions: Type.Integer(),
  feed_clicks: Type.Integer(),
  plays: Type.Integer(),
  completions: Type.Integer(),
  likes: Type.Integer(),
  ctr: { ...Rate, description: "feed_clicks / impressions" },
  completion_rate: { ...Rate, description: "completions / plays" },
  like_rate: { ...Rate, description: "likes / plays" },
};

export const GroupStats = Type.Object({
  group_id: Uuid,
  name: Type.String(),
  participants: Type.Integer({ description: "Participants assigned to the group" }),
  ...counts,
});
export type GroupStats = Static<typeof GroupStats>;

export const RecommenderStats = Type.Object({
  key: Type.String(),
  surface: Type.Unsafe<"feed" | "watch">({ type: "string", enum: ["feed", "watch"] }),
  ...counts,
});
export type RecommenderStats = Static<typeof RecommenderStats>;

/** api.md: `GET /api/v1/admin/experiments/{id}/stats`. */
export const ExperimentStats = Type.Object({
  experiment_id: Uuid,
  generated_at: Timestamp,
  groups: Type.Array(GroupStats),
  recommenders: Type.Array(RecommenderStats),
});
export type ExperimentStats = Static<typeof ExperimentStats>;
