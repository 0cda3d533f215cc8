import {
  ErrorBody,
  IdParams,
  INT32_MAX,
  IntegerIn,
  ParticipantUiTemplate,
  UiTemplate,
  UiTemplateCreate,
  UiTemplatePatch,
} from "@feedlab/schemas";
import { BLOCK_TYPES } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { Type } from "@sinclair/typebox";
import { accessOf } from "../auth/access.ts";
import { participantOf } from "../auth/auth.middleware.ts";
import { type MembersService, narrowUsedBy } from "../auth/members.ts";
import { route } from "../http/route.ts";
import { assigned } from "../study/study.service.ts";
import { MAX_SOURCE_CHARS } from "./compile.ts";
import type { TemplatesService } from "./templates.service.ts";

const rejected = {
  description:
    "compile_error (details: [{line, column, message}]), unknown_import, no_default_export, invalid_tree (details: {path}: the offending node, as tree.children[0]...), missing_field, invalid_field or validation_failed",
  schema: ErrorBody,
};
const inUse = {
  description:
    "template_in_use: groups use it (details.used_by: those in experiments the account may see; details.used_elsewhere: how many others)",
  schema: ErrorBody,
};

/** A template's source travels in the JSON body: the limit is the source's, with room for the rest. */
const TEMPLATE_BODY_LIMIT = MAX_SOURCE_CHARS * 4 + 64 * 1024;

export function templateRoutes({
  templates,
  members,
}: {
  templates: TemplatesService;
  members: MembersService;
}) {
  const visible = (ctx: Parameters<typeof accessOf>[0]) => members.visibleTo(accessOf(ctx));
  return [
    route({
      method: "post",
      path: "/api/v1/admin/ui-templates",
      audit: "layout.create",
      tag: "ui",
      summary: "Create a UI template (a layout of one page: TSX code or a tree of blocks)",
      description: `The server compiles a code template with the same compiler the console's editor runs; what does not compile is not stored. Sources up to ${MAX_SOURCE_CHARS} characters. A blocks template's tree is checked against the ${BLOCK_TYPES.length} blocks and compiled from its exported TSX.`,
      access: "admin",
      role: "researcher",
      body: UiTemplateCreate,
      bodyLimitBytes: TEMPLATE_BODY_LIMIT,
      responses: { 201: { description: "Created", schema: UiTemplate }, 422: rejected },
      handler: async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = narrowUsedBy(await templates.create(body), await visible(ctx));
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/ui-templates/{id}/export",
      tag: "ui",
      summary: "A template as standalone TSX (text/plain)",
      description:
        "A blocks template's tree exported as a TSX module over @feedlab/blocks, which the code track accepts as it is and which renders the same page; a code template's own source.",
      access: "admin",
      role: "researcher",
      params: IdParams,
      responses: {
        200: { description: "The TSX module", contentType: "text/plain" },
        404: { description: "Unknown template", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        const { name, tsx } = await templates.exportTsx(params.id);
        ctx.type = "text/plain; charset=utf-8";
        ctx.attachment(`${name.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "") || "layout"}.tsx`);
        ctx.body = tsx;
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/ui-templates",
      tag: "ui",
      summary: "List the UI templates, newest first, with the groups that use each",
      access: "admin",
      role: "researcher",
      responses: { 200: { description: "Templates", schema: Type.Array(UiTemplate) } },
      handler: async (ctx) => {
        const seen = await visible(ctx);
        ctx.body = (await templates.list()).map((t) => narrowUsedBy(t, seen));
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/ui-templates/{id}",
      tag: "ui",
      summary: "Read a UI template",
      access: "admin",
      role: "researcher",
      params: IdParams,
      responses: {
        200: { description: "The template", schema: UiTemplate },
        404: { description: "Unknown" },
      },
      handler: async (ctx, { params }) => {
        ctx.body = narrowUsedBy(await templates.get(params.id), await visible(ctx));
      },
    }),
    route({
      method: "patch",
      path: "/api/v1/admin/ui-templates/{id}",
      audit: "layout.update",
      tag: "ui",
      summary: "Change a UI template; a new source or tree makes a new version",
      access: "admin",
      role: "researcher",
      params: IdParams,
      body: UiTemplatePatch,
      bodyLimitBytes: TEMPLATE_BODY_LIMIT,
      responses: {
        200: { description: "Updated", schema: UiTemplate },
        404: { description: "Unknown" },
        409: inUse,
        422: rejected,
      },
      handler: async (ctx, { params, body }) => {
        const seen = await visible(ctx);
        ctx.body = narrowUsedBy(await templates.update(params.id, body, seen), seen);
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/admin/ui-templates/{id}",
      audit: "layout.delete",
      tag: "ui",
      summary: "Delete a UI template no group uses",
      access: "admin",
      role: "researcher",
      params: IdParams,
      responses: { 204: { description: "Deleted" }, 404: { description: "Unknown" }, 409: inUse },
      handler: async (ctx, { params }) => {
        await templates.remove(params.id, await visible(ctx));
        ctx.status = 204;
      },
    }),
    route({
      method: "get",
      path: "/api/v1/ui-templates/{id}",
      tag: "ui",
      summary: "What the participant's browser needs to render a template of their group",
      access: "participant",
      params: IdParams,
      responses: {
        200: { description: "The template", schema: ParticipantUiTemplate },
        404: { description: "Not a template of the participant's group" },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await templates.forParticipant(params.id, assigned(participantOf(ctx)).groupId);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/ui-templates/{id}/module.js",
      tag: "ui",
      summary: "The compiled ES module of a code template of the participant's group",
      description:
        "Self-contained: its imports of the platform namespace read the running runtime's modules (`globalThis.__feedlab.modules`). Cached for a year under `?v=<version>`.",
      access: "participant",
      params: IdParams,
      responses: {
        200: { description: "The module", contentType: "text/javascript" },
        404: { description: "Not a code template of the participant's group" },
      },
      handler: async (ctx, { params }) => {
        const { code, version } = await templates.moduleFor(params.id, assigned(participantOf(ctx)).groupId);
        ctx.type = "text/javascript; charset=utf-8";
        ctx.set(
          "Cache-Control",
          ctx.query.v === String(version) ? "private, max-age=31536000, immutable" : "private, no-cache",
        );
        ctx.body = code;
      },
    }),
    route({
      method: "post",
      path: "/api/v1/ui-templates/{id}/render-errors",
      tag: "ui",
      summary: "Report that a template threw while rendering (the researcher sees the last one)",
      access: "participant",
      params: IdParams,
      body: Type.Object(
        // Template versions are an integer column.
        { message: Type.String({ maxLength: 4000 }), version: IntegerIn(1, INT32_MAX) },
        { additionalProperties: false },
      ),
      responses: { 204: { description: "Recorded" }, 404: { description: "Not a template of the group" } },
      handler: async (ctx, { params, body }) => {
        const { groupId } = assigned(participantOf(ctx));
        await templates.reportRenderError(params.id, groupId, body);
        // In the server's log too, so an operator sees it without opening the console.
        ctx.state.log.warn(
          { template_id: params.id, version: body.version, group_id: groupId, message: body.message },
          "a participant's browser failed to render a UI template",
        );
        ctx.status = 204;
      },
    }),
  ];
}
