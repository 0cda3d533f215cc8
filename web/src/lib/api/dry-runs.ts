/** Dry runs: simulated participants through every arm. */
import type { DryRun, DryRunCreate } from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

const path = (experimentId: string) => `/api/v1/admin/experiments/${enc(experimentId)}/dry-runs`;

export const dryRunsApi = {
  /** Queues a dry run (a draft or running experiment); follow it with `get`. */
  start: (client: ApiClient, experimentId: string, body: DryRunCreate) =>
    client.request<DryRun>("POST", path(experimentId), { body }),

  /** The experiment's dry runs with their reports, newest first. */
  list: (client: ApiClient, experimentId: string) => client.request<DryRun[]>("GET", path(experimentId)),

  /** One dry run: its progress, then its report per arm. */
  get: (client: ApiClient, experimentId: string, runId: string) =>
    client.request<DryRun>("GET", `${path(experimentId)}/${enc(runId)}`),

  /** Erases every simulated participant of the experiment; the reports stay. */
  eraseParticipants: (client: ApiClient, experimentId: string) =>
    client.request<void>("DELETE", path(experimentId)),
};
