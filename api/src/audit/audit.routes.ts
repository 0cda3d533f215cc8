import { AuditEntry, IntegerIn, SAFE_INTEGER_MAX } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { route } from "../http/route.ts";
import type { AuditService } from "./audit.service.ts";

const AuditQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  // Cursors are the audit log's sequence numbers (a bigint column).
  before: Type.Optional(
    IntegerIn(1, SAFE_INTEGER_MAX, { description: "An entry's cursor: older entries only" }),
  ),
});

export function auditRoutes({ audit }: { audit: AuditService }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/audit",
      tag: "audit",
      summary: "Admin actions, newest first",
      description:
        "Each `{at, admin, action, target, details}` (plus `cursor`, for `before=` to page back): sign-ins (and failed attempts), changes to experiments, arms, pools, surveys, recommenders, participants and admins, exports and erasures. `details` names the fields sent, a few harmless values (status, format) and the client's address (as the trusted proxies tell, FEEDLAB_TRUST_PROXY), never the data.",
      access: "admin",
      query: AuditQuery,
      responses: { 200: { description: "Entries", schema: Type.Array(AuditEntry) } },
      handler: async (ctx, { query }) => {
        const { entries } = await audit.list({ limit: query.limit ?? 100, before: query.before });
        ctx.body = entries;
      },
    }),
  ];
}
