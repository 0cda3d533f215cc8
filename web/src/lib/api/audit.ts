/** The audit log of admin actions. */
import type { AuditEntry } from "../types.ts";
import type { ApiClient } from "./client.ts";

export const auditApi = {
  /** Admin actions, newest first; `before` (an entry's cursor) pages back. */
  list: (client: ApiClient, options: { limit?: number; before?: number } = {}) =>
    client.request<AuditEntry[]>("GET", "/api/v1/admin/audit", {
      query: { limit: options.limit, before: options.before },
    }),
};
