import { ErrorBody, IdParams, MemberList } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import type { MembersService } from "../auth/members.ts";
import { route } from "../http/route.ts";
import { assertExperiment } from "./exists.ts";

const notFound = { description: "Unknown experiment", schema: ErrorBody };

/** An experiment's members (api.md "Teams"): analysts may read them, its owners replace them. */
export function memberRoutes({ db, members }: { db: Db; members: MembersService }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/members",
      tag: "teams",
      summary: "The experiment's members and their roles, owners first",
      description:
        "Account owners may do everything on every experiment without being members; they are listed only when they are members.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: { 200: { description: "The members", schema: MemberList }, 404: notFound },
      handler: async (ctx, { params }) => {
        await assertExperiment(db, params.id);
        ctx.body = await members.list(params.id);
      },
    }),
    route({
      method: "put",
      path: "/api/v1/admin/experiments/{id}/members",
      audit: "experiment.members",
      tag: "teams",
      summary: "Replace the experiment's members; answers the new list",
      description:
        "Every username names an account, once (422 validation_failed naming the entry); one member at least is the experiment's owner (409 last_owner). A change applies at once, to sessions already signed in. `pseudonymized_only` makes a member's exports and packages of the experiment pseudonymized whatever they ask for.",
      access: "admin",
      role: "study_owner",
      params: IdParams,
      body: MemberList,
      responses: {
        200: { description: "The members now", schema: MemberList },
        404: notFound,
        409: { description: "last_owner: the list names no owner", schema: ErrorBody },
      },
      handler: async (ctx, { params, body }) => {
        ctx.body = await members.replace(params.id, body);
      },
    }),
  ];
}
