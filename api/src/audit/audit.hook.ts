import { isDeepStrictEqual } from "node:util";
import type { AuditAction } from "@feedlab/schemas";
import type { TSchema } from "@sinclair/typebox";
import type { AppContext } from "../http/context.ts";
import type { RouteInput } from "../http/route.ts";
import type { ArmState, FieldChange } from "./arm-changes.ts";
import type { AuditService } from "./audit.service.ts";
import type { Subject } from "./audit.subjects.ts";

/** Values short and harmless enough to name in the log (a status, a flag, a format), by field. */
const NAMED_VALUES = new Set(["status", "is_active", "excluded", "format", "surface", "kind", "role"]);

/** A request part that is a plain object (a JSON body, the query), or an empty one. */
const fieldsOf = (part: unknown): Record<string, unknown> =>
  part && typeof part === "object" && !Array.isArray(part) ? (part as Record<string, unknown>) : {};

/** The first of the values that is a string. */
const firstString = (...values: unknown[]): string | null =>
  (values.find((v) => typeof v === "string") as string | undefined) ?? null;

/**
 * What is read before the route runs: what a delete removes, an arm as it was before an update, and
 * an experiment's row before an update.
 */
interface Before {
  readonly subjects: Subject[] | null;
  readonly arm: ArmState | null;
  readonly experiment: Record<string, unknown> | null;
}

/**
 * The sent fields whose column an update changed: a form that sends every field (the console's
 * settings send the name, description and status together) is logged as changing only what differs.
 * A field without a column of its name is kept.
 */
const changedColumns = (
  fields: readonly string[],
  before: Record<string, unknown>,
  after: Record<string, unknown> | null,
): string[] => fields.filter((f) => !(f in before) || !isDeepStrictEqual(before[f], after?.[f]));

/**
 * What the audit log keeps of a successful admin request: who, the action the route declares, the
 * target (the path's id, or the id or URL of what was created), the names of the fields sent, with the
 * few values above, the admin's address (as the trusted proxies tell), and what the action is about
 * with the names it had then (`about`: an arm and its experiment, say), so that an entry still reads
 * well once the thing is renamed or gone. An arm's update keeps only the fields that changed, with
 * their values before and after in words (`changes`), and an experiment's update only the fields whose
 * value changed (with the few values above only when they changed). Never a password, a text or any participant's
 * data: a participant is named by id only.
 *
 * Called before the route's handler (a delete's subject is read while it exists); the function it
 * answers records the entry once the route has succeeded.
 */
export function auditHook(audit: AuditService) {
  return async (
    ctx: AppContext,
    action: AuditAction,
    input: RouteInput<TSchema, TSchema, TSchema>,
  ): Promise<() => Promise<void>> => {
    const params = fieldsOf(input.params);
    const isDelete = action.endsWith(".delete");
    const isArmUpdate = action === "arm.update" && typeof params.id === "string";
    const isExperimentUpdate = action === "experiment.update" && typeof params.id === "string";
    const before: Before = {
      subjects: isDelete ? await audit.subjects(action, params, {}) : null,
      arm: isArmUpdate ? await audit.arm(params.id as string) : null,
      experiment: isExperimentUpdate ? await audit.experiment(params.id as string) : null,
    };
    return async () => {
      const principal = ctx.state.principal;
      const created = fieldsOf(ctx.body);
      const body = fieldsOf(input.body);
      const sent = { ...fieldsOf(input.query), ...body };
      let fields = Object.keys(body).filter((k) => !/password/i.test(k));
      let changes: FieldChange[] | null = null;
      if (before.arm) {
        const after = await audit.arm(params.id as string);
        changes = after ? await audit.armChanges(before.arm, after) : [];
        fields = changes.map((c) => c.field);
      }
      if (before.experiment)
        fields = changedColumns(fields, before.experiment, await audit.experiment(params.id as string));
      const details: Record<string, unknown> = fields.length > 0 || changes ? { fields } : {};
      if (changes) details.changes = changes;
      details.address = ctx.ip;
      for (const [k, v] of Object.entries(sent))
        if (NAMED_VALUES.has(k) && (!(k in body) || fields.includes(k))) details[k] = v;
      // Who the experiment's members are now, by name and role (the body is the whole list).
      if (action === "experiment.members" && Array.isArray(input.body))
        details.members = (input.body as { username: string; role: string }[]).map((m) => ({
          username: m.username,
          role: m.role,
        }));
      const about = before.subjects ?? (await audit.subjects(action, params, created));
      if (about.length > 0) details.about = about;
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
  };
}
