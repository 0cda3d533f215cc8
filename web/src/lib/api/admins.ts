/** The accounts (api.md "Teams"): account owners manage them. */
import type { AccountRole, AdminAccount, AdminCreated } from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

export const adminsApi = {
  list: (client: ApiClient) => client.request<AdminAccount[]>("GET", "/api/v1/admin/admins"),

  /** Without a password, the server generates one and answers it once (`password`). */
  add: (client: ApiClient, body: { username: string; password?: string; role: AccountRole }) =>
    client.request<AdminCreated>("POST", "/api/v1/admin/admins", { body }),

  setRole: (client: ApiClient, username: string, role: AccountRole) =>
    client.request<AdminAccount>("PATCH", `/api/v1/admin/admins/${enc(username)}`, { body: { role } }),

  remove: (client: ApiClient, username: string) =>
    client.request<void>("DELETE", `/api/v1/admin/admins/${enc(username)}`),
};
