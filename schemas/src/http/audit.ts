import { type Static, Type } from "@sinclair/typebox";

/** An admin action from the audit log (`GET /api/v1/admin/audit`). */
export const AuditEntry = Type.Object({
  cursor: Type.Integer({ description: "Pass as `before` to read older entries" }),
  at: Type.String(),
  admin: Type.Union([Type.String(), Type.Null()]),
  action: Type.String(),
  target: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type AuditEntry = Static<typeof AuditEntry>;
