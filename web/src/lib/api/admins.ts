/** The admin accounts (api.md "Admin accounts"). */
import type { AdminAccount } from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

export const adminsApi = {
  list: (client: ApiClient) => client.request<AdminAccount[]>("GET", "/api/v1/admin/admins"),

  add: (client: ApiClient, body: { username: string; password: string; role: "owner" | "researcher" }) =>
    client.request<AdminAccount>("POST", "/api/v1/admin/admins", { body }),

  remove: (client: ApiClient, username: string) =>
    client.request<void>("DELETE", `/api/v1/admin/admins/${enc(username)}`),
};
