/** The recommender registry, a recommender's health, and a test call of one. */
import type {
  Recommender,
  RecommenderCreate,
  RecommenderHealth,
  RecommenderPatch,
  RecommenderTestRequest,
  RecommenderTestResult,
} from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

const path = (key: string) => `/api/v1/admin/recommenders/${enc(key)}`;

export const recommendersApi = {
  list: (client: ApiClient) => client.request<Recommender[]>("GET", "/api/v1/admin/recommenders"),

  register: (client: ApiClient, body: RecommenderCreate) =>
    client.request<Recommender>("POST", "/api/v1/admin/recommenders", { body }),

  update: (client: ApiClient, key: string, body: RecommenderPatch) =>
    client.request<Recommender>("PATCH", path(key), { body }),

  remove: (client: ApiClient, key: string) => client.request<void>("DELETE", path(key)),

  /** A recommender's calls, failures, empty results and latency over the last 24 hours. */
  health: (client: ApiClient, key: string, experimentId?: string) =>
    client.request<RecommenderHealth>("GET", `${path(key)}/health`, {
      query: { experiment_id: experimentId },
    }),

  /** One real call of a recommender (or of an unsaved config) with a sample request. */
  test: (client: ApiClient, key: string, body: RecommenderTestRequest) =>
    client.request<RecommenderTestResult>("POST", `${path(key)}/test`, { body }),
};
