import {
  activeParticipants,
  BUCKET_SECONDS,
  evaluationSpan,
  evaluationTimeline,
  type TimelineBucket,
} from "@feedlab/projector";
import type { ExperimentMonitor, ExperimentTimeline } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import type { ServiceDeps } from "../deps.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { callRecords, failureCount, rejectionsSince, windowStart } from "../monitoring/queries.ts";
import type { MonitoringRecorder } from "../monitoring/recorder.ts";
import { realJoinSpan, realJoinsByArm } from "../participants/queries/users.queries.ts";
import { surveyNamesOf } from "../surveys/queries/answers.queries.ts";
import { armsOf } from "./arms.ts";
import { sampleRatioTest } from "./sample-ratio.ts";

export interface MonitorDeps extends ServiceDeps {
  readonly monitoring: Pick<MonitoringRecorder, "flush">;
  /** Participants with an event this recent count as active now (default 5 minutes). */
  readonly activeMinutes?: number;
}

const MAX_BUCKETS = 500;

/** The finest bucket that keeps a span under 500 points. */
export function bucketFor(spanMs: number): TimelineBucket {
  if (spanMs / 1000 / BUCKET_SECONDS.minute <= MAX_BUCKETS) return "minute";
  if (spanMs / 1000 / BUCKET_SECONDS.hour <= MAX_BUCKETS) return "hour";
  return "day";
}

/** Per arm of an experiment, its real participants active since `since` (arms without any left out). */
async function activeByGroup(db: Db, experimentId: string, since: Date): Promise<Map<string, number>> {
  const rows = (await db("users")
    .whereIn("id", activeParticipants(db, experimentId, since))
    .where("simulated", false)
    .groupBy("group_id")
    .select("group_id", db.raw("count(*) as n"))) as { group_id: string; n: number | string }[];
  return new Map(rows.map((r) => [r.group_id, Number(r.n)]));
}

/**
 * A running study at a glance: assignment against the weights, who is active, survey completion per
 * arm, and problems as they happen (empty pages, external failures, rejected events); and the
 * results over time per arm. Read from read models and the monitoring records, never from raw events.
 * Its participant counts, the sample-ratio check among them, are of real participants only: a dry
 * run's simulated ones never count (api.md "Simulated participants").
 */
export function createMonitorService({ db, now, monitoring, activeMinutes = 5 }: MonitorDeps) {
  return {
    async monitor(experimentId: string): Promise<ExperimentMonitor> {
      const groups = await armsOf(db, experimentId);
      await monitoring.flush();
      const at = now();
      const activeSince = new Date(at.getTime() - activeMinutes * 60_000);
      const daySince = windowStart(at);
      const [activeBy, calls, rejections, surveys, responded] = await Promise.all([
        activeByGroup(db, experimentId, activeSince),
        callRecords(db, { experiment_id: experimentId }, daySince),
        rejectionsSince(db, experimentId, daySince),
        experimentRow<{ default_language: string }>(db, experimentId, "default_language").then((e) =>
          e === undefined ? [] : surveyNamesOf(db, experimentId, e.default_language),
        ),
        db("survey_responses as r")
          .join("users as u", "u.id", "r.user_id")
          .where("u.experiment_id", experimentId)
          .where("u.simulated", false)
          .groupBy("r.survey_id", "u.group_id")
          .select("r.survey_id", "u.group_id", db.raw("count(distinct r.user_id) as n")) as Promise<
          { survey_id: string; group_id: string; n: number | string }[]
        >,
      ]);
      // Calls are keyed by recommender and surface, not group: attribute them through the groups'
      // recommenders.
      const usesOf = (rec: string, surface: string) =>
        groups
          .filter((g) => (surface === "feed" ? g.algorithm_feed : g.algorithm_watch) === rec)
          .map((g) => g.id);
      const perGroup = new Map<string, { empty: number; failures: number }>();
      for (const c of calls)
        for (const g of usesOf(c.recommender, c.surface)) {
          const s = perGroup.get(g) ?? { empty: 0, failures: 0 };
          s.empty += c.empty_results;
          s.failures += failureCount(c);
          perGroup.set(g, s);
        }
      const total = groups.reduce((s, g) => s + g.assigned, 0);
      const weights = groups.reduce((s, g) => s + g.weight, 0);
      const problems: ExperimentMonitor["problems"] = [];
      for (const c of calls) {
        const failures = failureCount(c);
        if (failures > 0)
          problems.push({
            at: c.minute,
            kind: "recommender_failure",
            message: `${c.recommender} (${c.surface}): ${c.last_failure ?? "calls failed"}`,
            count: failures,
          });
        if (c.empty_results > 0)
          problems.push({
            at: c.minute,
            kind: "empty_page",
            message: `${c.recommender} served an empty ${c.surface === "feed" ? "feed" : "related list"}`,
            count: c.empty_results,
          });
      }
      for (const r of rejections)
        problems.push({
          at: new Date(r.minute).toISOString(),
          kind: "rejected_events",
          message: `Events rejected: ${r.code}`,
          count: Number(r.n),
        });
      problems.sort((a, b) => b.at.localeCompare(a.at) || a.kind.localeCompare(b.kind));
      const respondedBy = new Map(responded.map((r) => [`${r.survey_id}\u0000${r.group_id}`, Number(r.n)]));
      return {
        generated_at: at.toISOString(),
        active_window_minutes: activeMinutes,
        groups: groups.map((g) => ({
          group_id: g.id,
          name: g.name,
          weight: g.weight,
          participants: g.assigned,
          expected_share: weights > 0 ? g.weight / weights : 0,
          observed_share: total > 0 ? g.assigned / total : null,
          active_now: activeBy.get(g.id) ?? 0,
          empty_pages: perGroup.get(g.id)?.empty ?? 0,
          recommender_failures: perGroup.get(g.id)?.failures ?? 0,
        })),
        sample_ratio: sampleRatioTest(groups.map((g) => ({ weight: g.weight, count: g.assigned }))),
        surveys: surveys.map((s) => ({
          survey_id: s.id,
          name: s.name,
          kind: s.kind,
          groups: groups.map((g) => ({
            group_id: g.id,
            responded: respondedBy.get(`${s.id}\u0000${g.id}`) ?? 0,
            participants: g.assigned,
          })),
        })),
        problems: problems.slice(0, 200),
      };
    },

    /**
     * Per group and time bucket: the evaluation counts and the participants who joined, real ones
     * only (the evaluation timeline never counts a simulated participant's events).
     */
    async timeline(experimentId: string, requested?: TimelineBucket): Promise<ExperimentTimeline> {
      const groups = await armsOf(db, experimentId);
      const [span, joinSpan] = await Promise.all([
        evaluationSpan(db, experimentId),
        realJoinSpan(db, experimentId),
      ]);
      const times = [span?.first, span?.last, joinSpan?.first, joinSpan?.last]
        .filter((t): t is Date => t !== null && t !== undefined)
        .map((t) => new Date(t).getTime());
      const bucket =
        requested ?? (times.length ? bucketFor(Math.max(...times) - Math.min(...times)) : "minute");
      const seconds = BUCKET_SECONDS[bucket];
      const [points, joins] = await Promise.all([
        evaluationTimeline(db, experimentId, bucket),
        realJoinsByArm(db, experimentId, seconds),
      ]);
      const zero = { impressions: 0, feed_clicks: 0, plays: 0, completions: 0, likes: 0, joined: 0 };
      const series = new Map<string, Map<number, typeof zero>>(groups.map((g) => [g.id, new Map()]));
      const slot = (groupId: string, t: number) => {
        const s = series.get(groupId);
        if (!s) return null;
        // Both reads are bucketed by the database already: `t` is a bucket's start.
        let p = s.get(t);
        if (!p) {
          p = { ...zero };
          s.set(t, p);
        }
        return p;
      };
      for (const p of points) {
        const into = slot(p.group_id, p.at.getTime());
        if (!into) continue;
        into.impressions += p.impressions;
        into.feed_clicks += p.feed_clicks;
        into.plays += p.plays;
        into.completions += p.completions;
        into.likes += p.likes;
      }
      for (const j of joins) {
        const into = slot(j.group_id, Number(j.at) * 1000);
        if (into) into.joined += Number(j.n);
      }
      return {
        bucket,
        groups: groups.map((g) => ({
          group_id: g.id,
          name: g.name,
          points: [...(series.get(g.id) ?? new Map()).entries()]
            .sort((a, b) => a[0] - b[0])
            .map(([t, p]) => ({ at: new Date(t).toISOString(), ...p })),
        })),
      };
    },
  };
}

export type MonitorService = ReturnType<typeof createMonitorService>;
