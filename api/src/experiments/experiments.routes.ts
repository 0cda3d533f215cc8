import {
  ErrorBody,
  Experiment,
  ExperimentCreate,
  ExperimentPatch,
  IdParams,
  Readiness,
} from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { accessOf } from "../auth/access.ts";
import { adminOf } from "../auth/auth.middleware.ts";
import type { MembersService } from "../auth/members.ts";
import type { ErasureService } from "../erasure/erasure.service.ts";
import { route } from "../http/route.ts";
import type { ExperimentsService } from "./experiments.service.ts";

const notFound = { description: "Unknown experiment", schema: ErrorBody };

export function experimentRoutes({
  experiments,
  erasure,
  members,
}: {
  experiments: ExperimentsService;
  erasure: ErasureService;
  members: MembersService;
}) {
  return [
    route({
      method: "post",
      path: "/api/v1/admin/experiments",
      audit: "experiment.create",
      tag: "experiments",
      summary: "Create an experiment (status starts as draft)",
      access: "admin",
      role: "researcher",
      body: ExperimentCreate,
      responses: { 201: { description: "Created", schema: Experiment } },
      handler: async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = await experiments.create(body, "draft", adminOf(ctx).adminId);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments",
      tag: "experiments",
      summary: "List experiments, newest first",
      description:
        "An account owner sees every experiment; a researcher, those they are a member of (api.md, Teams).",
      access: "admin",
      role: "researcher",
      responses: { 200: { description: "Experiments", schema: Type.Array(Experiment) } },
      handler: async (ctx) => {
        ctx.body = await experiments.list((await members.visibleTo(accessOf(ctx))) ?? undefined);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}",
      tag: "experiments",
      summary: "Read an experiment",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: { 200: { description: "The experiment", schema: Experiment }, 404: notFound },
      handler: async (ctx, { params }) => {
        ctx.body = await experiments.get(params.id);
      },
    }),
    route({
      method: "patch",
      path: "/api/v1/admin/experiments/{id}",
      audit: "experiment.update",
      tag: "experiments",
      summary:
        "Update name, description, status, consent text, completion rule, exclusion rules or response floor",
      description:
        "Starting an experiment (status running) checks that it is ready: at least one group, a pool with videos, every group's recommenders and layouts still existing, an active post survey when the completion waits for one, and every text participants read (the consent text, each active survey's questions and options) in every language the study lists (a plain string is the default language's text). Otherwise 422 experiment_not_ready with details.problems: [{problem: no_groups | empty_pool | unknown_recommender | unknown_ui | no_post_survey | missing_translation, message, group_id?, page?, key?, survey_id?, fields?, languages?}], and nothing changes. `consent_text` (Markdown, a string or one text per language `{en: …, de: …}`; null or blank for none; a tag that is not BCP 47 -> 422 invalid_language) and `completion` (api.md, Study flow; a redirect that is not an http(s) URL or holds an unknown placeholder -> 422 invalid_completion) take effect at once for every participant. `exclusion_rules` (docs/quality.md): pre-registered rules over the quality measures, applied by `/stats?exclusions=rules`; every change is recorded with the admin, the time, the experiment's status and the rules before and after (`/stats?exclusions=rules` gives them as `rules.changes`). `min_response_ms` (0-10000, null for none): every feed and related answer of every arm takes at least this long (docs/results.md, Latency parity).",
      access: "admin",
      role: "editor",
      params: IdParams,
      body: ExperimentPatch,
      responses: {
        200: { description: "Updated", schema: Experiment },
        404: notFound,
        422: { description: "experiment_not_ready (or a field that is not valid)", schema: ErrorBody },
      },
      handler: async (ctx, { params, body }) => {
        ctx.body = await experiments.update(params.id, body, adminOf(ctx).username);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/readiness",
      tag: "experiments",
      summary: "What keeps the experiment from starting (the console's checklist)",
      description:
        "`problems` as PATCH status running would report them in experiment_not_ready; empty when it can start.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: {
        200: {
          description: "Readiness",
          schema: Readiness,
        },
        404: notFound,
      },
      handler: async (ctx, { params }) => {
        const problems = await experiments.readiness(params.id);
        ctx.body = { ready: problems.length === 0, problems };
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/admin/experiments/{id}",
      tag: "experiments",
      summary:
        "Delete an experiment with its groups, pool links, participants and surveys, and erase its events",
      description:
        "Every participant of the experiment is erased as `DELETE /admin/participants/{user_id}` erases one (rows, read models, the event log), in batches; then the experiment goes. The audit log records `experiment.delete` with the row counts.",
      access: "admin",
      role: "study_owner",
      params: IdParams,
      responses: { 204: { description: "Deleted" }, 404: notFound },
      handler: async (ctx, { params }) => {
        await erasure.experiment(params.id, adminOf(ctx).username);
        ctx.status = 204;
      },
    }),
  ];
}
