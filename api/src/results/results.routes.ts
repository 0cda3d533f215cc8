import {
  CompletenessQuery,
  ErrorBody,
  ExperimentCompleteness,
  ExperimentMonitor,
  ExperimentStats,
  ExperimentTimeline,
  IdParams,
  StatsQuery,
  TimelineQuery,
} from "@feedlab/schemas";
import { route } from "../http/route.ts";
import type { CompletenessService } from "./completeness.service.ts";
import type { MonitorService } from "./monitor.service.ts";
import type { StatsService } from "./stats.service.ts";

const unknownExperiment = { description: "Unknown experiment", schema: ErrorBody };

/** Results per arm (api.md: stats, completeness) and the live monitoring of a running study. */
export function resultsRoutes({
  stats,
  completeness,
  monitor,
}: {
  stats: StatsService;
  completeness: CompletenessService;
  monitor: MonitorService;
}) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/stats",
      tag: "results",
      summary: "Results per arm: counts and rates with 95% intervals, per group and per recommender",
      description:
        "Counts IMPRESSION, FEED_CLICK, VIDEO_PLAY, VIDEO_ENDED (completions) and LIKE from the evaluation read model, live within the projector's lag. ctr = feed_clicks / impressions, completion_rate = completions / plays, like_rate = likes / plays, each {value, low, high}: the ratio of sums and a 95% interval that treats each participant as a cluster (delta method, cluster-robust variance); null parts when the denominator is 0, and a null interval with one participant. Per recommender, impressions count for the list they were in (related: the watch page); feed clicks count for the feed's recommender; plays, completions and likes count for the watch page's recommender, so a feed recommender's item has 0 plays and its feed_clicks are the clicks that opened the videos played on the watch page. Simulated participants (dry runs) are left out of every count, rate and participant figure unless include_simulated=true. exclusions=rules also leaves out the participants the experiment's pre-registered exclusion rules exclude (docs/quality.md): each group then gives excluded_by_rules and rule_exclusions (how many each rule excluded; a participant may break several), and `rules` gives the rules, every change made to them (who, when, the experiment's status, before and after) and `balance`, Pearson's chi-square test of arm against exclusion (unequal when p < 0.05: exclusion that depends on the arm breaks randomisation). The researcher's own exclusions always apply. Each group's latency_ms gives, per surface (feed: HOME_FEED, related: RECOMMENDATIONS), p50 and p95 of the latencies its participants' page loads reported, with requests (how many page loads they rest on) and participants (how many participants made them), so a gap resting on a few loads can be told apart from one resting on many (docs/results.md, Latency parity).",
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: StatsQuery,
      responses: {
        200: { description: "The experiment's results", schema: ExperimentStats },
        404: unknownExperiment,
      },
      handler: async (ctx, { params, query }) => {
        ctx.body = await stats.forExperiment(params.id, {
          includeSimulated: query.include_simulated === true,
          exclusions: query.exclusions ?? "manual",
        });
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/completeness",
      tag: "results",
      summary: "Data completeness: gaps in the client's sequence numbers per group and participant",
      description:
        "The browser runtime numbers each session's events from 1 (`seq`). A session's missing events are its highest seq less the numbered events the log holds; participants and groups sum their sessions. loss_rate = missing / (numbered events + missing), null when nothing was numbered. Events without seq (sent by other clients) count in `events` only. A batch lost at the very end of a session leaves no gap and cannot be counted. Participants above `threshold` (default 0.05) are flagged. Simulated participants (dry runs) are left out unless include_simulated=true. `groups` count every participant; `participants` is one page in join order (api.md \"Lists at study scale\"): limit (default 100, at most 1000), cursor (`next_cursor` of the previous page), gaps=true keeps participants with missing events, flagged=true those above the threshold, clock_off=true those whose clock is more than a minute off the server's or who sent times that cannot be right (filters given together must all hold); `total` counts every match.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: CompletenessQuery,
      responses: {
        200: { description: "Completeness per group and participant", schema: ExperimentCompleteness },
        404: unknownExperiment,
      },
      handler: async (ctx, { params, query }) => {
        ctx.body = await completeness.forExperiment(params.id, query);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/monitor",
      tag: "results",
      summary: "A running study at a glance: assignment, activity, survey completion, problems",
      description:
        "Per group: participants assigned, the share the weights ask for and the observed share, participants active in the last 5 minutes, empty pages served and external recommender failures in the last 24 hours. sample_ratio: Pearson's chi-square test of assignment against the weights; mismatch when p < 0.001. Simulated participants (dry runs) never count here: not in the participants, shares, activity, survey completion or the sample-ratio test. Per survey and group: participants with a response. problems: the last 24 hours' empty pages, recommender failures and rejected events per minute, newest first (at most 200).",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: {
        200: { description: "The study's state", schema: ExperimentMonitor },
        404: unknownExperiment,
      },
      handler: async (ctx, { params }) => {
        ctx.body = await monitor.monitor(params.id);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/timeline",
      tag: "results",
      summary: "Results over time: per group and time bucket, evaluation counts and participants joined",
      description:
        "Counts per bucket (UTC), not cumulative; buckets without anything are left out. Events count in the minute they were received. Default bucket: the finest of minute, hour and day that keeps the study under 500 buckets. Simulated participants (dry runs) and their events are left out.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: TimelineQuery,
      responses: {
        200: { description: "Counts over time per group", schema: ExperimentTimeline },
        404: unknownExperiment,
      },
      handler: async (ctx, { params, query }) => {
        ctx.body = await monitor.timeline(params.id, query.bucket);
      },
    }),
  ];
}
