import type { TSchema } from "@sinclair/typebox";
import type { AppContext } from "../http/context.ts";
import type { RouteInput } from "../http/route.ts";
import type { AuditService } from "./audit.service.ts";

/** Values short and harmless enough to name in the log (a status, a flag, a format), by field. */
const NAMED_VALUES = new Set(["status", "is_active", "excluded", "format", "surface", "kind"]);

/**
 * What the audit log keeps of a successful admin request: who, the action the route declares, the
 * target (the path's id, or the id or URL of what was created), the names of the fields sent, with the
 * few values above, and the admin's address (as the trusted proxies tell). Never a password, a text
 * or any participant's data.
 */
/** A request part that is a plain object (a JSON body, the query), or an empty one. */
const fieldsOf = (part: unknown): Record<string, unknown> =>
  part && typeof part === "object" && !Array.isArray(part) ? (part as Record<string, unknown>) : {};

/** The first of the values that is a string. */
const firstString = (...values: unknown[]): string | null =>
  (values.find((v) => typeof v === "string") as string | undefined) ?? null;

export function auditHook(audit: AuditService) {
  return async (
    ctx: AppContext,
    action: string,
    input: RouteInput<TSchema, TSchema, TSchema>,
  ): Promise<void> => {
    const principal = ctx.state.principal;
    const params = fieldsOf(input.params);
    const created = fieldsOf(ctx.body);
    const body = fieldsOf(input.body);
    const sent = { ...fieldsOf(input.query), ...body };
    const fields = Object.keys(body).filter((k) => !/password/i.test(k));
    const details: Record<string, unknown> = fields.length > 0 ? { fields } : {};
    details.address = ctx.ip;
    for (const [k, v] of Object.entries(sent)) if (NAMED_VALUES.has(k)) details[k] = v;
    await audit.record({
      admin: principal?.role === "admin" ? principal.username : null,
      action,
      target: firstString(
        params.id,
        params.user_id,
        params.username,
        params.key,
        created.id,
        created.key,
        created.username,
        created.url,
      ),
      details,
    });
  };
}
