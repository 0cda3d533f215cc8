/** An experiment's results and monitoring: rates per arm, completeness, activity, timeline, power, attrition. */
import type { Attrition, Balance, PowerResult } from "@feedlab/schemas";
import type { Query } from "../participant-api.ts";
import type {
  ExperimentCompleteness,
  ExperimentMonitor,
  ExperimentStats,
  ExperimentTimeline,
} from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

const path = (experimentId: string) => `/api/v1/admin/experiments/${enc(experimentId)}`;

export const resultsApi = {
  /** How assignment stands: each arm's count, cap, state and chance now; covariates per arm (api.md). */
  balance: (client: ApiClient, experimentId: string) =>
    client.request<Balance>("GET", `${path(experimentId)}/balance`),

  /**
   * Counts and rates with 95% intervals, per arm and per recommender; `exclusions: "rules"` leaves out
   * whom the experiment's exclusion rules exclude too.
   */
  stats: (client: ApiClient, experimentId: string, exclusions: "manual" | "rules" = "manual") =>
    client.request<ExperimentStats>("GET", `${path(experimentId)}/stats`, {
      query: { exclusions: exclusions === "rules" ? "rules" : undefined },
    }),

  /**
   * Gaps in the client's sequence numbers per arm, and a page of participants (`cursor`, at most 1,000);
   * `threshold` flags participants; `flagged` and `clock_off` keep those flagged, or with a clock off.
   */
  completeness: (
    client: ApiClient,
    experimentId: string,
    query: {
      threshold?: number;
      cursor?: string;
      limit?: number;
      flagged?: boolean;
      clock_off?: boolean;
    } = {},
  ) =>
    client.request<ExperimentCompleteness>("GET", `${path(experimentId)}/completeness`, {
      query: {
        ...query,
        flagged: query.flagged ? "true" : undefined,
        clock_off: query.clock_off ? "true" : undefined,
      },
    }),

  /** Assignment, activity, survey completion and problems of a running study. */
  monitor: (client: ApiClient, experimentId: string) =>
    client.request<ExperimentMonitor>("GET", `${path(experimentId)}/monitor`),

  /** Counts per arm and time bucket. */
  timeline: (client: ApiClient, experimentId: string) =>
    client.request<ExperimentTimeline>("GET", `${path(experimentId)}/timeline`),

  /**
   * Per arm, who began each session from 1 and whose window closed unused, and the chi-square of arm by
   * reached-the-last-session (api.md "Longitudinal studies (wave 4)").
   */
  attrition: (client: ApiClient, experimentId: string) =>
    client.request<Attrition>("GET", `${path(experimentId)}/attrition`),

  /** The participants each arm needs to detect a difference in a rate (`powerQuery` of power.ts). */
  power: (client: ApiClient, experimentId: string, query: Query) =>
    client.request<PowerResult>("GET", `${path(experimentId)}/power`, { query }),
};
