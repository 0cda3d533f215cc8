import { DryRun, DryRunCreate, ErrorBody, IdParams } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import type { AppContext } from "../../http/context.ts";
import { route } from "../../http/route.ts";
import type { DryRunsService } from "./dry-runs.service.ts";

const RunParams = Type.Object({
  id: Type.String({ format: "uuid" }),
  run_id: Type.String({ format: "uuid" }),
});
const unknown = { description: "Unknown experiment (or dry run)", schema: ErrorBody };

const ABOUT =
  "A dry run (issue 36) runs simulated participants through every arm of the experiment: in headless Chromium through the real participant pages (`browser: true`, the default), or over HTTP with the real event contract and batching (`browser: false`). Each is seeded and reproducible; they consent (a set share declines), answer every survey, browse, watch, like and follow related videos as their taste makes them, and come back for the sessions the completion rule needs, with time compressed (a rule of minutes on the pages is a warning, not a problem, and the completion it guards is reported as not tested). Runs are queued and run one at a time, within a 10-minute budget. Simulated participants are flagged (`simulated: true`, login ids starting `sim-`) and left out of what real participants see and what decides about them; `/stats`, `/completeness` and the exports leave them out unless include_simulated=true.";

/** This server's own address as the request reached it (the simulated participants call it). */
function selfUrl(ctx: AppContext): string {
  const { localAddress, localPort } = ctx.req.socket;
  const host =
    localAddress === undefined || localAddress === "::" || localAddress === "0.0.0.0"
      ? "127.0.0.1"
      : localAddress.replace(/^::ffff:/, "");
  return `http://${host.includes(":") ? `[${host}]` : host}:${localPort}`;
}

/** api.md "Simulated participants": start, list, read and erase dry runs. */
export function dryRunRoutes({ dryRuns }: { dryRuns: DryRunsService }) {
  return [
    route({
      method: "post",
      path: "/api/v1/admin/experiments/{id}/dry-runs",
      audit: "dry_run.start",
      tag: "dry runs",
      summary: "Start a dry run: simulated participants through every arm, with a report per arm",
      description: `${ABOUT} Answers 202 with the queued run; follow it with GET .../dry-runs/{run_id}. A draft or running experiment only (409 experiment_not_open); with browser true and no Chromium on the server, 422 no_browser with the command that installs it.`,
      access: "admin",
      role: "editor",
      params: IdParams,
      body: DryRunCreate,
      responses: {
        202: { description: "Queued", schema: DryRun },
        404: unknown,
        409: { description: "experiment_not_open: the experiment is paused or completed", schema: ErrorBody },
        422: { description: "no_browser, or experiment_not_ready (no arms)", schema: ErrorBody },
      },
      handler: async (ctx, { params, body }) => {
        ctx.status = 202;
        ctx.body = await dryRuns.create(params.id, body, selfUrl(ctx));
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/dry-runs",
      tag: "dry runs",
      summary: "The experiment's dry runs, newest first, with their reports",
      description: ABOUT,
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: { 200: { description: "Dry runs", schema: Type.Array(DryRun) }, 404: unknown },
      handler: async (ctx, { params }) => {
        ctx.body = await dryRuns.list(params.id);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/dry-runs/{run_id}",
      tag: "dry runs",
      summary: "One dry run: its progress, then its report per arm",
      description:
        "`ok` is true when no arm has a problem (null until the run is done). Per arm: participants, finished, declined, `ctr` with its 95% interval, the event types that arrived, `missing_event_types` (those the contract's catalog says the journeys' actions produce that never arrived), the surveys met in order, one filled completion URL, `completion_not_tested` (why no simulated participant of the arm reached the completion, which gets participants paid, so it was not checked: a rule of minutes on the pages the run does not wait for, a study that ends when the researcher completes it, everyone declining; null when someone reached it, or when not reaching it is the arm's `completion_not_reached` problem), the time to the first card, and `problems` [{participant, user_id, page, kind, message}]. An arm without problems is green for what ran: read `completion_not_tested` beside `ok`. `warnings`: what the run could not check and why.",
      access: "admin",
      role: "analyst",
      params: RunParams,
      responses: { 200: { description: "The dry run", schema: DryRun }, 404: unknown },
      handler: async (ctx, { params }) => {
        ctx.body = await dryRuns.get(params.id, params.run_id);
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/admin/experiments/{id}/dry-runs",
      audit: "dry_run.erase",
      tag: "dry runs",
      summary: "Erase every simulated participant of the experiment (the reports stay)",
      description:
        "Erases the simulated participants as erasure does (their rows, events and what the read models hold of them). The reports hold no participant data and stay.",
      access: "admin",
      role: "editor",
      params: IdParams,
      responses: { 204: { description: "Erased" }, 404: unknown },
      handler: async (ctx, { params }) => {
        await dryRuns.erase(params.id);
        ctx.status = 204;
      },
    }),
  ];
}
