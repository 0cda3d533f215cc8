import { ArmChange, ErrorBody, Group, GroupCreate, GroupPatch, IdParams } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { route } from "../http/route.ts";
import type { GroupsService } from "./groups.service.ts";

const rejected = {
  description: "unknown_recommender, unsupported_surface, unknown_ui or validation_failed",
  schema: ErrorBody,
};

export function groupRoutes({ groups }: { groups: GroupsService }) {
  return [
    route({
      method: "post",
      path: "/api/v1/admin/experiments/{id}/groups",
      audit: "arm.create",
      tag: "groups",
      summary: "Create a group (arm) with its algorithm and UI configuration",
      access: "admin",
      role: "editor",
      params: IdParams,
      body: GroupCreate,
      responses: {
        201: { description: "Created", schema: Group },
        404: { description: "Unknown experiment" },
        422: rejected,
      },
      handler: async (ctx, { params, body }) => {
        ctx.status = 201;
        ctx.body = await groups.create(params.id, body);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/groups",
      tag: "groups",
      summary: "List an experiment's groups",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: { 200: { description: "Groups", schema: Type.Array(Group) } },
      handler: async (ctx, { params }) => {
        ctx.body = await groups.list(params.id);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/groups/{id}",
      tag: "groups",
      summary: "Read a group",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: { 200: { description: "The group", schema: Group }, 404: { description: "Unknown group" } },
      handler: async (ctx, { params }) => {
        ctx.body = await groups.get(params.id);
      },
    }),
    route({
      method: "patch",
      path: "/api/v1/admin/groups/{id}",
      audit: "arm.update",
      tag: "groups",
      summary: "Update a group (the Edit algorithm modal uses this)",
      description:
        "While the experiment is running, a change of the arm's algorithm or UI is recorded (who, when, from what to what: GET .../experiments/{id}/changes), so analyses can split the arm's data at the change; the console asks for confirmation first.",
      access: "admin",
      role: "editor",
      params: IdParams,
      body: GroupPatch,
      responses: { 200: { description: "Updated", schema: Group }, 422: rejected },
      handler: async (ctx, { params, body }) => {
        const principal = ctx.state.principal;
        ctx.body = await groups.update(
          params.id,
          body,
          principal?.role === "admin" ? principal.username : undefined,
        );
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/changes",
      tag: "groups",
      summary: "Changes made to the arms while the experiment was running, oldest first",
      description:
        "Each: {group_id, group_name, field: algorithm_feed | algorithm_watch | ui_feed | ui_watch, old_value, new_value, admin, changed_at}. Split an arm's events at `changed_at` to compare before and after.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: {
        200: {
          description: "Recorded changes",
          schema: Type.Array(ArmChange),
        },
        404: { description: "Unknown experiment" },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await groups.changes(params.id);
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/admin/groups/{id}",
      audit: "arm.delete",
      tag: "groups",
      summary: "Delete a group that has no participants",
      access: "admin",
      role: "editor",
      params: IdParams,
      responses: {
        204: { description: "Deleted" },
        409: {
          description:
            "group_has_participants, with details.participants (the count) and details.simulated (those of them a dry run simulated: erasing the dry runs' participants frees the arm of them)",
        },
      },
      handler: async (ctx, { params }) => {
        await groups.remove(params.id);
        ctx.status = 204;
      },
    }),
  ];
}
