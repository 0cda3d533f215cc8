import { ErrorBody, IdParams, ModelRun, ModelRunsQuery, TrainAccepted } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { route } from "../http/route.ts";
import type { TrainingService } from "./training.service.ts";

const notFound = { description: "Unknown experiment", schema: ErrorBody };

const NOTES =
  "The learned model is trained by the deployment's one trainer (`feedlab start` roles all or trainer): on a schedule (every FEEDLAB_TRAIN_INTERVAL_S seconds, default 600, for each running experiment with a group serving learned_model; a scheduled run with no new VIDEO_WATCHED_1S, LIKE or VIDEO_ENDED since the last model is recorded as skipped) and on request. A run extracts the experiment's interactions (VIDEO_WATCHED_1S 1.0, LIKE 3.0, VIDEO_ENDED above half 2.0), trains implicit ALS, evaluates it leave-last-out (recall@10 and NDCG@10 against the popularity baseline on the same split), stores each participant's top 100 videos (recommendation_cache) and each pool video's 50 nearest videos (item_similarity: factor cosine blended with co-views and metadata), and swaps them in with its run record in one transaction.";

/** `POST .../models/train` and `GET .../models`. */
export function trainingRoutes({ training }: { training: TrainingService }) {
  return [
    route({
      method: "post",
      path: "/api/v1/admin/experiments/{id}/models/train",
      audit: "model.train",
      tag: "training",
      summary: "Train the experiment's learned model now (even when nothing changed since the last model)",
      description: `Queues a manual run and answers its id at once; the trainer takes it within about 2 s and the run's progress shows in GET .../models. While a run of the experiment is still queued, its id is answered instead of a second run. ${NOTES}`,
      access: "admin",
      role: "editor",
      params: IdParams,
      responses: { 202: { description: "Queued", schema: TrainAccepted }, 404: notFound },
      handler: async (ctx, { params }) => {
        ctx.status = 202;
        ctx.body = await training.requestRun(params.id);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/models",
      tag: "training",
      summary: "List the experiment's model runs, newest first",
      description: `Each run: status, trigger, times, the size of its data (interactions, users, videos), metrics (offline evaluation against the popularity baseline, step timings) or its skipped_reason or error. ${NOTES}`,
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: ModelRunsQuery,
      responses: {
        200: { description: "Model runs, newest first", schema: Type.Array(ModelRun) },
        404: notFound,
      },
      handler: async (ctx, { params, query }) => {
        ctx.body = await training.list(params.id, query.limit);
      },
    }),
  ];
}
