import {
  BonusesBody,
  BonusPlan,
  DryRunQuery,
  ErrorBody,
  GroupsBody,
  GroupsResult,
  IdParams,
  ProlificCall,
  ProlificSubmissions,
  ReviewBody,
  ReviewResults,
  Uuid,
} from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { adminOf } from "../auth/auth.middleware.ts";
import { route } from "../http/route.ts";
import type { ProlificService } from "./prolific.service.ts";

const BASE = "/api/v1/admin/experiments/{id}/prolific";
const error = (description: string) => ({ description, schema: ErrorBody });
/** The answers every Prolific route may give when Prolific or its set-up is missing. */
const PROLIFIC_ERRORS = {
  404: error("Unknown experiment"),
  409: error(
    "prolific_not_configured (no FEEDLAB_PROLIFIC_TOKEN on the server) or prolific_not_linked (no Prolific study on the experiment)",
  ),
  502: error("prolific_refused: Prolific answered with an error, given in its words"),
  503: error("prolific_unavailable: Prolific could not be reached after retries; nothing was marked done"),
};
const DRY_RUN =
  " With `?dry_run=true`, nothing is sent: the answer lists the calls Feedlab would send (`calls`: method, path, body; never the token).";

/** Prolific (api.md "Prolific (wave 4)", docs/prolific.md): review, bonuses and groups of the linked study. */
export function prolificRoutes({ prolific }: { prolific: ProlificService }) {
  const who = (ctx: Parameters<typeof adminOf>[0]) => adminOf(ctx).username;
  return [
    route({
      method: "get",
      path: `${BASE}/submissions`,
      tag: "prolific",
      summary: "The linked Prolific study's submissions beside their participants' flags and exclusions",
      description:
        "Read from Prolific at each request (its `status` is Prolific's word). Each submission is matched to the participant whose join link carried its SESSION_ID, else its PROLIFIC_PID; `user_id` is null for a submission nobody joined Feedlab with. `rules`: the exclusion rules that hold for the participant; `auto_approval`: with on_finish approve, where the approval on finish stands.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: { 200: { description: "The submissions", schema: ProlificSubmissions }, ...PROLIFIC_ERRORS },
      handler: async (ctx, { params }) => {
        ctx.body = await prolific.submissions(params.id, who(ctx));
      },
    }),
    route({
      method: "post",
      path: `${BASE}/review`,
      tag: "prolific",
      summary: "Approve, reject or ask to return submissions, one or many",
      description: `Every decision is checked before anything is sent: a rejection needs one of Prolific's \`rejection_category\` values and a \`message\` of at least 100 characters (else 422 invalid_decision). Approvals go in bulk, 100 per request; a rejection and a return one request each. Each result says whether Prolific accepted that decision; a failure (after retries with backoff) leaves the rest going and is reported in \`error\`. \`return\` sends \`reasons\` as Prolific's request_return_reasons (default: the rules that excluded the participant).${DRY_RUN}`,
      access: "admin",
      role: "editor",
      params: IdParams,
      query: DryRunQuery,
      body: ReviewBody,
      responses: {
        200: { description: "One result per decision", schema: ReviewResults },
        422: error(
          "invalid_decision: a rejection without a category or a 100-character message; nothing sent",
        ),
        ...PROLIFIC_ERRORS,
      },
      handler: async (ctx, { params, query, body }) => {
        ctx.body = await prolific.review(params.id, body, who(ctx), query.dry_run === true);
      },
    }),
    route({
      method: "get",
      path: `${BASE}/bonuses`,
      tag: "prolific",
      summary: "The experiment's bonus plans, newest first",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: {
        200: { description: "The plans", schema: Type.Object({ items: Type.Array(BonusPlan) }) },
        404: error("Unknown experiment"),
      },
      handler: async (ctx, { params }) => {
        ctx.body = { items: await prolific.bonuses(params.id) };
      },
    }),
    route({
      method: "post",
      path: `${BASE}/bonuses`,
      tag: "prolific",
      summary: "Set up bonuses on Prolific from a list or a rule on a quality measure (not paid yet)",
      description: `\`bonuses\`: Prolific participant ids and amounts in the study's currency. \`rule\`: \`per_unit\` times the participant's \`measure\` (a quality measure of docs/quality.md), capped at \`max\`, rounded down to cents, for every finished participant the rules do not exclude. The plan is set up on Prolific (its bonus payment, not paid) and answered with its count and total; \`POST .../bonuses/{bonus_id}/pay\` pays it.${DRY_RUN}`,
      access: "admin",
      role: "study_owner",
      params: IdParams,
      query: DryRunQuery,
      body: BonusesBody,
      responses: {
        201: {
          description: "Set up",
          schema: Type.Object({
            id: Uuid,
            count: Type.Integer(),
            total: Type.Number(),
            status: Type.Literal("created"),
            plan: BonusPlan,
          }),
        },
        200: {
          description: "dry_run: the plan's size and the call",
          schema: Type.Object({
            count: Type.Integer(),
            total: Type.Number(),
            calls: Type.Array(ProlificCall),
          }),
        },
        422: error(
          "invalid_bonus: an unknown or yes/no measure, a participant named twice, or no bonus to pay",
        ),
        ...PROLIFIC_ERRORS,
      },
      handler: async (ctx, { params, query, body }) => {
        const out = await prolific.createBonuses(params.id, body, who(ctx), query.dry_run === true);
        if (out.plan === null) {
          ctx.body = { count: out.count, total: out.total, calls: out.calls ?? [] };
          return;
        }
        ctx.status = 201;
        ctx.body = {
          id: out.plan.id,
          count: out.plan.count,
          total: out.plan.total,
          status: "created",
          plan: out.plan,
        };
      },
    }),
    route({
      method: "post",
      path: `${BASE}/bonuses/{bonus_id}/pay`,
      tag: "prolific",
      summary: "Pay a bonus plan, once",
      description: `Prolific's pay call is not idempotent, so Feedlab sends it at most once per plan: the plan is marked being paid (committed) before the request leaves, and paid when Prolific accepts it. Paying again answers 409 already_paid without calling Prolific, after a retry or a restart as well. Prolific refusing (429, 503, a 4xx) or not being reached puts the plan back to created; an answer lost after sending answers 502 payment_unconfirmed and leaves the plan unknown (docs/prolific.md: check on Prolific).${DRY_RUN}`,
      access: "admin",
      role: "study_owner",
      params: Type.Object({ id: Uuid, bonus_id: Uuid }),
      query: DryRunQuery,
      responses: {
        200: {
          description: "Paid (or, with dry_run, the call)",
          schema: Type.Object({ plan: BonusPlan, calls: Type.Optional(Type.Array(ProlificCall)) }),
        },
        409: error(
          "already_paid: the plan was paid, or sent with its answer lost; also prolific_not_configured, prolific_not_linked",
        ),
        404: error("Unknown experiment or plan"),
        502: error("prolific_refused, or payment_unconfirmed: sent, its answer lost (never sent again)"),
        503: error("prolific_unavailable: not paid; try again"),
      },
      handler: async (ctx, { params, query }) => {
        ctx.body = await prolific.pay(params.id, params.bonus_id, who(ctx), query.dry_run === true);
      },
    }),
    route({
      method: "post",
      path: `${BASE}/groups`,
      tag: "prolific",
      summary: "Add the finished (or included) participants to a Prolific participant group",
      description: `\`who: "finished"\`: every finished participant with a Prolific id; \`"included"\`: finished and excluded neither by the rules nor by hand. \`added\` counts the ids Prolific's answer lists as members.${DRY_RUN}`,
      access: "admin",
      role: "editor",
      params: IdParams,
      query: DryRunQuery,
      body: GroupsBody,
      responses: { 200: { description: "Added", schema: GroupsResult }, ...PROLIFIC_ERRORS },
      handler: async (ctx, { params, query, body }) => {
        ctx.body = await prolific.addToGroup(params.id, body, who(ctx), query.dry_run === true);
      },
    }),
  ];
}
