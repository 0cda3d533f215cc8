/** An experiment's participants: the list, one participant, their trajectory, quality and erasure. */
import type { ExperimentQuality, ParticipantQuality } from "@feedlab/schemas/http/quality.ts";
import type {
  AddParticipantRequest,
  Participant,
  ParticipantListQuery,
  ParticipantPage,
  ParticipantSummary,
  StoredEvent,
} from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

const inExperiment = (experimentId: string) => `/api/v1/admin/experiments/${enc(experimentId)}`;
const path = (userId: string) => `/api/v1/admin/participants/${enc(userId)}`;

export const participantsApi = {
  /**
   * A page of the experiment's participants (api.md "Lists at study scale"): filtered by status, arm,
   * login id text and simulated, in `sort` order; `next_cursor` continues it.
   */
  list: (client: ApiClient, experimentId: string, query: ParticipantListQuery = {}) =>
    client.request<ParticipantPage>("GET", `${inExperiment(experimentId)}/participants`, {
      query: { ...query, simulated: query.simulated === undefined ? undefined : String(query.simulated) },
    }),

  add: (client: ApiClient, experimentId: string, body: AddParticipantRequest) =>
    client.request<Participant>("POST", `${inExperiment(experimentId)}/participants`, { body }),

  /** One participant as the list shows them; their sessions are those completion counts. */
  get: (client: ApiClient, userId: string) => client.request<ParticipantSummary>("GET", path(userId)),

  /** A participant's events in time order (without the high-frequency and tab-state types). */
  trajectory: (client: ApiClient, userId: string) =>
    client.request<StoredEvent[]>("GET", `${path(userId)}/trajectory`),

  /** Excludes a participant from analysis (with a reason), or includes them again. */
  setExcluded: (client: ApiClient, userId: string, excluded: boolean, reason?: string) =>
    client.request<void>("PATCH", path(userId), {
      body: { excluded, ...(reason !== undefined ? { reason } : {}) },
    }),

  /** Erases the participant and all their data, the event log included. */
  erase: (client: ApiClient, userId: string) => client.request<void>("DELETE", path(userId)),

  /** One page of the experiment's quality measures and flags (docs/quality.md). */
  quality: (
    client: ApiClient,
    experimentId: string,
    options: { cursor?: string; limit?: number; includeSimulated?: boolean; flagged?: boolean } = {},
  ) =>
    client.request<ExperimentQuality>("GET", `${inExperiment(experimentId)}/quality`, {
      query: {
        cursor: options.cursor,
        limit: options.limit,
        flagged: options.flagged ? "true" : undefined,
        include_simulated:
          options.includeSimulated === undefined ? undefined : String(options.includeSimulated),
      },
    }),

  /** One participant's quality: their own rows only. */
  participantQuality: (client: ApiClient, userId: string) =>
    client.request<ParticipantQuality>("GET", `${path(userId)}/quality`),
};
