/** The learned model's training runs. */
import type { ModelRun, TrainAccepted } from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

const path = (experimentId: string) => `/api/v1/admin/experiments/${enc(experimentId)}/models`;

export const modelRunsApi = {
  /** The experiment's model runs, newest first. */
  list: (client: ApiClient, experimentId: string, limit?: number) =>
    client.request<ModelRun[]>("GET", path(experimentId), { query: { limit } }),

  /** Queues a training run now (even when nothing changed); answers the run's id. */
  train: (client: ApiClient, experimentId: string) =>
    client.request<TrainAccepted>("POST", `${path(experimentId)}/train`),
};
