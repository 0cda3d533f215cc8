import { AuditEntry, IntegerIn, SAFE_INTEGER_MAX } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { accessOf } from "../auth/access.ts";
import { adminOf } from "../auth/auth.middleware.ts";
import type { MembersService } from "../auth/members.ts";
import { route } from "../http/route.ts";
import type { AuditService } from "./audit.service.ts";

const AuditQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  // Cursors are the audit log's sequence numbers (a bigint column).
  before: Type.Optional(
    IntegerIn(1, SAFE_INTEGER_MAX, { description: "An entry's cursor: older entries only" }),
  ),
});

const Subject = Type.Object({
  kind: Type.Union(
    ["experiment", "arm", "survey", "layout", "recommender", "video", "participant"].map((k) =>
      Type.Literal(k),
    ),
  ),
  id: Type.String({ description: "The id (a recommender's key)" }),
  name: Type.Optional(
    Type.String({
      description:
        "Its name when the action was recorded (an experiment's or arm's name, a survey's name, a layout's name, a recommender's label, a video's title). A participant's is their login id, looked up when the log is read and never stored: an erased participant has none.",
    }),
  ),
});

const FieldChange = Type.Object({
  field: Type.String({
    description: "name, weight, algorithm_config.feed|watch, ui_config.feed|watch or recommender_params",
  }),
  from: Type.String({
    description: "The value before, in words: a recommender's label, a layout's name or preset key",
  }),
  to: Type.String({ description: "The value after, in words" }),
});

/** An entry as served, its `details` documented (the stored shape stays `{at, admin, action, target, details}`). */
const AuditEntryServed = Type.Composite([
  Type.Omit(AuditEntry, ["details"]),
  Type.Object({
    details: Type.Object(
      {
        fields: Type.Optional(
          Type.Array(Type.String(), {
            description: "The fields sent; for `arm.update`, only the fields that changed",
          }),
        ),
        changes: Type.Optional(
          Type.Array(FieldChange, { description: "`arm.update`: each changed field, before and after" }),
        ),
        about: Type.Optional(
          Type.Array(Subject, {
            description:
              "What the action is about, outermost first and the target last (an arm: `[experiment, arm]`), named as they were then, so renamed or deleted things still read well",
          }),
        ),
        address: Type.Optional(Type.String({ description: "The client's address" })),
        rows: Type.Optional(
          Type.Record(Type.String(), Type.Unknown(), {
            description:
              "Erasures (`participant.erase`, `participant.withdraw`, `experiment.delete`): row counts",
          }),
        ),
      },
      { additionalProperties: true },
    ),
  }),
]);

export function auditRoutes({ audit, members }: { audit: AuditService; members: MembersService }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/audit",
      tag: "audit",
      summary: "Admin actions, newest first",
      description:
        'Each `{at, admin, action, target, details}` (plus `cursor`, for `before=` to page back): sign-ins (and failed attempts), changes to experiments, arms, pools, surveys, layouts, recommenders, videos, participants and admins, exports and erasures. `details` names the fields sent, a few harmless values (status, format) and the client\'s address (as the trusted proxies tell, FEEDLAB_TRUST_PROXY), never the data. An account owner sees every entry; a researcher, their own and those about an experiment they are a member of (api.md, Teams). `details.about` names what the action concerns as it was called at the time (`[{kind: "experiment", id, name: "Pilot"}, {kind: "arm", id, name: "Control"}]`), so the entry reads well after a rename or a delete; participants appear by id, and get their login id as `name` only while they exist (it is looked up when the log is read, never stored). `arm.update` keeps only the fields that changed, in `fields`, and `details.changes`: `[{field, from, to}]` in words (a recommender\'s label, a layout\'s name or preset key).',
      access: "admin",
      role: "researcher",
      query: AuditQuery,
      responses: { 200: { description: "Entries", schema: Type.Array(AuditEntryServed) } },
      handler: async (ctx, { query }) => {
        const experiments = await members.visibleTo(accessOf(ctx));
        const visibleTo = experiments ? { username: adminOf(ctx).username, experiments } : undefined;
        const { entries } = await audit.list({ limit: query.limit ?? 100, before: query.before, visibleTo });
        ctx.body = entries;
      },
    }),
  ];
}
