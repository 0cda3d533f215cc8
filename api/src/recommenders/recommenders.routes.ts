import {
  ErrorBody,
  RecommenderCreate,
  RecommenderKeyParams,
  RecommenderPatch,
  RecommenderView,
} from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { accessOf } from "../auth/access.ts";
import { type MembersService, narrowUsedBy } from "../auth/members.ts";
import { route } from "../http/route.ts";
import type { RecommenderRegistry } from "./registry.service.ts";

const error = (description: string) => ({ description, schema: ErrorBody });

const REGISTRY_NOTES =
  'Records have key, kind (`builtin` for the five built-ins: random, popularity, recency, similarity, learned_model; `external_http` for registered services), label, description, category, supports_feed, supports_watch, config (each header\'s value shown as "********": header values are write-only), created_at and updated_at (null for a built-in never edited), used_by: the groups whose algorithm_config names it in experiments the account may see, and used_elsewhere: how many groups of other experiments do. A change is applied at once on the process that handled it and reaches every other API process within a second (PostgreSQL LISTEN/NOTIFY).';

export function recommenderRoutes({
  registry,
  members,
}: {
  registry: RecommenderRegistry;
  members: MembersService;
}) {
  const visible = (ctx: Parameters<typeof accessOf>[0]) => members.visibleTo(accessOf(ctx));
  return [
    route({
      method: "get",
      path: "/api/v1/admin/recommenders",
      tag: "recommenders",
      summary: "List recommenders (built-ins first, then registered services by key)",
      description: REGISTRY_NOTES,
      access: "admin",
      role: "researcher",
      responses: { 200: { description: "Recommender records", schema: Type.Array(RecommenderView) } },
      handler: async (ctx) => {
        const seen = await visible(ctx);
        ctx.body = (await registry.list()).map((r) => narrowUsedBy(r, seen));
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/recommenders",
      audit: "recommender.create",
      tag: "recommenders",
      summary: "Register an external_http recommender",
      description: `Required: key, kind (external_http), label, config.url. Defaults: description "", category "external", supports_feed true, supports_watch false (set supports_watch, and keep supports_feed, only if the service accepts both a null and a set current_video_id: spec rule 6), config.method POST, config.timeout_seconds 5.0, config.headers {}, config.video_id_path video_ids, and the default body (user_id, experiment_id, limit, offset, current_video_id, exclude_video_ids) when config.body_template is absent. With GET, the body's fields are query parameters: lists repeat the name per element (exclude_video_ids=a&exclude_video_ids=b), null and empty lists are left out, objects are JSON text. The service answers JSON; video_id_path locates the list of video UUIDs (\`*\` iterates a list: items.*.video_id). Order is kept; non-UUIDs and ids outside the pool are dropped. Any failure (connection refused, DNS, timeout, 5xx or other non-2xx, invalid JSON, a path to a non-list, no usable id) is logged as a warning and gives an empty list, never a 5xx. The recommender is usable at once. ${REGISTRY_NOTES}`,
      access: "admin",
      role: "researcher",
      body: RecommenderCreate,
      responses: {
        201: { description: "Registered: the record", schema: RecommenderView },
        409: error("recommender_exists: the key is taken (a built-in or a registered recommender)"),
        422: error(
          'validation_failed naming the field (a missing key, kind, label or config.url; a bad URL, header, or path; a header sent as "********", with nothing stored to keep); blocked_address: config.url names a link-local or cloud metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::254)',
        ),
      },
      handler: async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = narrowUsedBy(await registry.register(body), await visible(ctx));
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/recommenders/{key}",
      tag: "recommenders",
      summary: "Read one recommender",
      description: REGISTRY_NOTES,
      access: "admin",
      role: "researcher",
      params: RecommenderKeyParams,
      responses: {
        200: { description: "The record", schema: RecommenderView },
        404: error("No recommender with that key"),
      },
      handler: async (ctx, { params }) => {
        ctx.body = narrowUsedBy(await registry.read(params.key), await visible(ctx));
      },
    }),
    route({
      method: "patch",
      path: "/api/v1/admin/recommenders/{key}",
      audit: "recommender.update",
      tag: "recommenders",
      summary: "Change a recommender (partial update)",
      description:
        'Any of label, description, category, supports_feed, supports_watch, config. key and kind cannot change (a value equal to the current one is accepted, another is 422 immutable_field). config is merged field by field into the stored config and checked like a registration; body_template null restores the default body; a header sent as "********" keeps its stored value. Built-ins accept only label, description and category: anything else is 400 builtin_immutable. Groups already assigned are not re-checked against new supports_feed/supports_watch values; the check runs when a group is edited. The cached instance is rebuilt at once on this process and within a second on the others. Responds with the record.',
      access: "admin",
      role: "researcher",
      params: RecommenderKeyParams,
      body: RecommenderPatch,
      responses: {
        200: { description: "Updated: the record", schema: RecommenderView },
        400: error(
          "builtin_immutable: supports_feed, supports_watch, config (or key, kind) sent for a built-in",
        ),
        404: error("No recommender with that key"),
        422: error(
          "validation_failed naming the field, immutable_field (key or kind), or blocked_address (config.url names a link-local or cloud metadata address)",
        ),
      },
      handler: async (ctx, { params, body }) => {
        ctx.body = narrowUsedBy(await registry.update(params.key, body), await visible(ctx));
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/admin/recommenders/{key}",
      audit: "recommender.delete",
      tag: "recommenders",
      summary: "Remove an external_http recommender",
      description:
        "Succeeds even while groups use it (spec rule 5; see used_by): their participants' next feed or related request answers 503 recommender_unavailable until the group's algorithm_config names another recommender. Change those groups first to avoid that. Built-ins cannot be deleted (400 builtin_immutable).",
      access: "admin",
      role: "researcher",
      params: RecommenderKeyParams,
      responses: {
        204: { description: "Removed" },
        400: error("builtin_immutable: a built-in recommender"),
        404: error("No recommender with that key"),
      },
      handler: async (ctx, { params }) => {
        await registry.remove(params.key);
        ctx.status = 204;
      },
    }),
  ];
}
