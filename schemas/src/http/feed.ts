import { type Static, Type } from "@sinclair/typebox";
import { Uuid } from "./common.ts";
import { Video } from "./videos.ts";

/** Page size of the feed endpoints: api.md pins the default 20 and the maximum 100. */
export const FEED_DEFAULT_LIMIT = 20;
export const FEED_MAX_LIMIT = 100;

export const FeedQuery = Type.Object({
  session_id: Uuid,
  limit: Type.Integer({ minimum: 1, maximum: FEED_MAX_LIMIT, default: FEED_DEFAULT_LIMIT }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  after: Type.Optional(
    Type.String({ maxLength: 200, description: "Position token from POST /api/v1/events" }),
  ),
});
export type FeedQuery = Static<typeof FeedQuery>;

export const FeedPage = Type.Object({
  items: Type.Array(Video),
  has_more: Type.Boolean(),
  next_offset: Type.Union([Type.Integer(), Type.Null()]),
  recommender: Type.String(),
});
export type FeedPage = Static<typeof FeedPage>;
