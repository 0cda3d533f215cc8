import type { TSchema } from "@sinclair/typebox";
import type { AppContext } from "../http/context.ts";
import type { RouteInput } from "../http/route.ts";
import type { AuditService } from "./audit.service.ts";

/** Values short and harmless enough to name in the log (a status, a flag, a format), by field. */
const NAMED_VALUES = new Set(["status", "is_active", "excluded", "format", "surface", "kind"]);

/**
 * What the audit log keeps of a successful admin request: who, the action the route declares, the
 * target (the path's id, or the id of what was created), and the names of the fields sent, with the
 * few values above. Never a password, a text or any participant's data.
 */
export function auditHook(audit: AuditService) {
  return async (
    ctx: AppContext,
    action: string,
    input: RouteInput<TSchema, TSchema, TSchema>,
  ): Promise<void> => {
    const principal = ctx.state.principal;
    const params = (input.params ?? {}) as Record<string, unknown>;
    const body = ctx.body && typeof ctx.body === "object" ? (ctx.body as Record<string, unknown>) : {};
    const created = [body.id, body.key, body.username].find((v) => typeof v === "string") as
      | string
      | undefined;
    const target = [params.id, params.user_id, params.username, params.key].find(
      (v) => typeof v === "string",
    ) as string | undefined;
    const details: Record<string, unknown> = {};
    for (const source of [input.body, input.query])
      if (source && typeof source === "object" && !Array.isArray(source)) {
        const fields = Object.keys(source).filter((k) => !/password/i.test(k));
        if (source === input.body && fields.length > 0) details.fields = fields;
        for (const k of fields) if (NAMED_VALUES.has(k)) details[k] = (source as Record<string, unknown>)[k];
      }
    await audit.record({
      admin: principal?.role === "admin" ? principal.username : null,
      action,
      target: target ?? created ?? null,
      details,
    });
  };
}
