import type { ProgressWatcher } from "@feedlab/projector";
import { ErrorBody, FeedPage, FeedQuery, IdParams, Video } from "@feedlab/schemas";
import { participantOf } from "../auth/auth.middleware.ts";
import type { AppContext } from "../http/context.ts";
import { readAfter as readAfterPosition } from "../http/read-after.ts";
import { route } from "../http/route.ts";
import type { FeedPageJson } from "../recommenders/dispatcher.ts";
import type { StudyService } from "../study/study.service.ts";
import type { FeedService } from "./feed.service.ts";

export interface FeedRoutesDeps {
  readonly feed: FeedService;
  readonly progress: ProgressWatcher;
  /** The study flow's gate: consent given, study running. */
  readonly study: StudyService;
  /** How long a read-your-writes request waits for the projections (default 2 s). */
  readonly readAfterTimeoutMs?: number;
}

const FEED_DESCRIPTION =
  "The recommender is asked for limit + 1 ids (the extra one only sets has_more). The answer keeps the recommender's order, holds only videos of the experiment's pool, and never a video the participant watched (VIDEO_WATCHED_1S or VIDEO_ENDED; pass `after` to include events just sent). A failing external recommender gives an empty page (200), never an error. A group whose recommender was deleted answers 503 recommender_unavailable. When the experiment sets `min_response_ms`, every page of every arm is answered no sooner than that many ms after the request reached this route (a timer pads the faster answers, so arms can be made equal in latency by design; docs/results.md, \"Latency parity\").";

/** Answers a page the dispatcher wrote as JSON text. */
function answer(ctx: AppContext, page: FeedPageJson): void {
  ctx.type = "application/json";
  ctx.body = page;
}

/** What a page of the feed or of a related list answers instead of a page. */
const PAGE_REFUSALS = {
  403: {
    description:
      "participant_lapsed: a window of the schedule closed unused (also the study gate's consent_required, experiment_paused, experiment_not_open)",
    schema: ErrorBody,
  },
  409: {
    description:
      "not_assigned: the participant has no arm until they answer the pre survey; session_not_open: the session began before the schedule's next window (details.opens_at)",
    schema: ErrorBody,
  },
  503: {
    description: "recommender_unavailable: the group's recommender was deleted",
    schema: ErrorBody,
  },
} as const;

export function feedRoutes({ feed, progress, study, readAfterTimeoutMs = 2000 }: FeedRoutesDeps) {
  const readAfter = (ctx: AppContext, token: string | undefined) =>
    readAfterPosition(progress, ctx, token, readAfterTimeoutMs);

  /**
   * A page of the feed, or of the related list of `currentVideoId` (a pool video, else 404): the
   * participant admitted, the session theirs, the events sent before it read, and the answer held
   * back to the experiment's `min_response_ms` from when the request reached the route.
   */
  async function servePage(ctx: AppContext, query: FeedQuery, currentVideoId?: string): Promise<void> {
    const started = performance.now();
    const p = await study.admitToPages(participantOf(ctx), query.session_id);
    await feed.checkSession(query.session_id, p.userId);
    if (currentVideoId !== undefined) await feed.poolVideo(p.experimentId, currentVideoId);
    await readAfter(ctx, query.after);
    const page = await feed.page({
      userId: p.userId,
      experimentId: p.experimentId,
      groupId: p.groupId,
      sessionId: query.session_id,
      limit: query.limit,
      offset: query.offset,
      ...(currentVideoId === undefined ? {} : { currentVideoId }),
    });
    await feed.pad(p.experimentId, started);
    answer(ctx, page);
  }

  return [
    route({
      method: "get",
      path: "/feed",
      tag: "feed",
      summary: "A page of the feed, served by the group's algorithm_config.feed",
      description: FEED_DESCRIPTION,
      access: "participant",
      query: FeedQuery,
      responses: {
        200: { description: "A page", schema: FeedPage },
        ...PAGE_REFUSALS,
      },
      handler: (ctx, { query }) => servePage(ctx, query),
    }),
    route({
      method: "get",
      path: "/feed/{id}/related",
      tag: "feed",
      summary: "Videos related to a video, served by the group's algorithm_config.watch",
      description: `${FEED_DESCRIPTION} The current video ({id}, a pool member) is the recommender's current_video_id and is never in the list.`,
      access: "participant",
      params: IdParams,
      query: FeedQuery,
      responses: {
        200: { description: "A page", schema: FeedPage },
        404: { description: "Not a video of the pool" },
        ...PAGE_REFUSALS,
      },
      handler: (ctx, { params, query }) => servePage(ctx, query, params.id),
    }),
    route({
      method: "get",
      path: "/api/v1/videos/{id}",
      tag: "feed",
      summary: "A video of the participant's pool",
      access: "participant",
      params: IdParams,
      responses: {
        200: { description: "The video", schema: Video },
        404: { description: "Not in the pool" },
        409: {
          description: "not_assigned: the participant has no arm until they answer the pre survey",
          schema: ErrorBody,
        },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await feed.poolVideo(
          (await study.admitToPages(participantOf(ctx))).experimentId,
          params.id,
        );
      },
    }),
  ];
}
