/** Experiments: their records, readiness and the changes made to running arms. */
import type {
  ArmChange,
  CreateExperimentRequest,
  Experiment,
  Readiness,
  UpdateExperimentRequest,
} from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

const path = (id: string) => `/api/v1/admin/experiments/${enc(id)}`;

export const experimentsApi = {
  list: (client: ApiClient) => client.request<Experiment[]>("GET", "/api/v1/admin/experiments"),

  create: (client: ApiClient, body: CreateExperimentRequest) =>
    client.request<Experiment>("POST", "/api/v1/admin/experiments", { body }),

  get: (client: ApiClient, id: string) => client.request<Experiment>("GET", path(id)),

  update: (client: ApiClient, id: string, body: UpdateExperimentRequest) =>
    client.request<Experiment>("PATCH", path(id), { body }),

  remove: (client: ApiClient, id: string) => client.request<void>("DELETE", path(id)),

  /** Changes made to the experiment's arms while it was running, oldest first. */
  armChanges: (client: ApiClient, id: string) => client.request<ArmChange[]>("GET", `${path(id)}/changes`),

  /** What keeps the experiment from starting (empty `problems` when it can). */
  readiness: (client: ApiClient, id: string) => client.request<Readiness>("GET", `${path(id)}/readiness`),
};
