import { ErrorBody, ExperimentStats, IdParams } from "@feedlab/schemas";
import { route } from "../http/route.ts";
import type { StatsService } from "./stats.service.ts";

/** `GET /api/v1/admin/experiments/{id}/stats` (api.md). */
export function statsRoutes({ stats }: { stats: StatsService }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/stats",
      tag: "results",
      summary: "Results per arm: counts and rates with 95% intervals, per group and per recommender",
      description:
        "Counts IMPRESSION, FEED_CLICK, VIDEO_PLAY, VIDEO_ENDED (completions) and LIKE from the evaluation read model, live within the projector's lag. ctr = feed_clicks / impressions, completion_rate = completions / plays, like_rate = likes / plays, each {value, low, high}: the ratio of sums and a 95% interval that treats each participant as a cluster (delta method, cluster-robust variance); null parts when the denominator is 0, and a null interval with one participant. Per recommender, impressions count for the list they were in (related: the watch page); plays, completions and likes count for the watch page's recommender.",
      access: "admin",
      params: IdParams,
      responses: {
        200: { description: "The experiment's results", schema: ExperimentStats },
        404: { description: "Unknown experiment", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await stats.forExperiment(params.id);
      },
    }),
  ];
}
