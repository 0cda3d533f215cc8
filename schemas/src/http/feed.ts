import { type Static, Type } from "@sinclair/typebox";
import { Uuid } from "./common.ts";
import { Video } from "./videos.ts";

/** Page size of the feed endpoints: api.md pins the default 20 and the maximum 100. */
export const FEED_DEFAULT_LIMIT = 20;
const FEED_MAX_LIMIT = 100;

export const FeedQuery = Type.Object({
  session_id: Uuid,
  limit: Type.Integer({ minimum: 1, maximum: FEED_MAX_LIMIT, default: FEED_DEFAULT_LIMIT }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  after: Type.Optional(
    Type.String({ maxLength: 200, description: "Position token from POST /api/v1/events" }),
  ),
});
export type FeedQuery = Static<typeof FeedQuery>;

/** A video of a feed or related page, with the probability its recommender placed it with. */
const FeedItem = Type.Composite([
  Video,
  Type.Object({
    propensity: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description:
        "The probability with which the recommender's policy placed this video at its position, for off-policy evaluation: 1 for a deterministic ranking (popularity, recency, similarity, learned_model), 1 / (videos it could show) for random, null when unknown (external_http)",
    }),
  }),
]);

export const FeedPage = Type.Object({
  items: Type.Array(FeedItem),
  has_more: Type.Boolean(),
  next_offset: Type.Union([Type.Integer(), Type.Null()]),
  recommender: Type.String(),
});
export type FeedPage = Static<typeof FeedPage>;
