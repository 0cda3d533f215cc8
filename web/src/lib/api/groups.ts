/** An experiment's groups (its arms). */
import type { Group, GroupInput } from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

export const groupsApi = {
  list: (client: ApiClient, experimentId: string) =>
    client.request<Group[]>("GET", `/api/v1/admin/experiments/${enc(experimentId)}/groups`),

  create: (client: ApiClient, experimentId: string, body: GroupInput) =>
    client.request<Group>("POST", `/api/v1/admin/experiments/${enc(experimentId)}/groups`, { body }),

  update: (client: ApiClient, id: string, body: Partial<GroupInput>) =>
    client.request<Group>("PATCH", `/api/v1/admin/groups/${enc(id)}`, { body }),

  remove: (client: ApiClient, id: string) =>
    client.request<void>("DELETE", `/api/v1/admin/groups/${enc(id)}`),
};
