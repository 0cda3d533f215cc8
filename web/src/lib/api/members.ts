/** An experiment's members (api.md "Teams"). */
import type { Member } from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

export const membersApi = {
  list: (client: ApiClient, experimentId: string) =>
    client.request<Member[]>("GET", `/api/v1/admin/experiments/${enc(experimentId)}/members`),

  /** Replaces the whole list; answers it as stored. */
  replace: (client: ApiClient, experimentId: string, members: readonly Member[]) =>
    client.request<Member[]>("PUT", `/api/v1/admin/experiments/${enc(experimentId)}/members`, {
      body: members,
    }),
};
