import { type EvaluationSums, evaluationCounts, evaluationSums } from "@feedlab/projector";
import {
  type Assignment,
  assignmentInForce,
  type ExclusionRule,
  type ExperimentStats,
  type GroupStats,
  type RecommenderStats,
} from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { assignmentProbabilities } from "../participants/queries/users.queries.ts";
import { armsOf, countsByParticipant, leftOutUsers, type SimulatedOption } from "./arms.ts";
import { armSeed, type IpwEstimate, ipwEstimate } from "./ipw.ts";
import { armLatencies } from "./latency.ts";
import { rateFromSums } from "./ratio.ts";
import { exclusionBalance, perRule, rulesOf } from "./rule-exclusions.ts";

type Counts = Omit<
  GroupStats,
  | "group_id"
  | "name"
  | "participants"
  | "excluded_participants"
  | "latency_ms"
  | "excluded_by_rules"
  | "rule_exclusions"
>;

/** The participants an experiment's rules exclude, with the rules each breaks (quality's read). */
export type RuleBreakers = (
  experimentId: string,
  rules: readonly ExclusionRule[],
  leftOut: ReadonlySet<string>,
) => Promise<Map<string, { readonly group_id: string; readonly rules: readonly ExclusionRule[] }>>;

/** Which exclusions a read of the results applies (api.md `exclusions`). */
export interface StatsOptions extends SimulatedOption {
  readonly exclusions?: "manual" | "rules";
}

const NO_RATE = { n: 0, x: 0, y: 0, xx: 0, yy: 0, xy: 0 };
const NOTHING: EvaluationSums = {
  impressions: 0,
  feed_clicks: 0,
  plays: 0,
  completions: 0,
  likes: 0,
  ctr: NO_RATE,
  completion_rate: NO_RATE,
  like_rate: NO_RATE,
};

/** The counts and the three rates, each with its clustered interval, from the database's sums. */
const summarize = (s: EvaluationSums): Counts => ({
  impressions: s.impressions,
  feed_clicks: s.feed_clicks,
  plays: s.plays,
  completions: s.completions,
  likes: s.likes,
  ctr: rateFromSums(s.ctr),
  completion_rate: rateFromSums(s.completion_rate),
  like_rate: rateFromSums(s.like_rate),
});

/**
 * Each arm's inverse-probability-weighted mean of the adaptive metric (api.md "Assignment (wave 4)"),
 * over the participants the read counts (none of `leftOut`), by arm id. A participant's metric is their
 * own rate, as adaptive assignment counts it: ctr feed_clicks / impressions and like_rate likes / plays
 * (none without a denominator), completion_rate 1 when finished, else 0. The bootstrap is seeded by the
 * assignment's seed and the arm's place in `arms`, so the same data reads the same interval.
 */
async function ipwByArm(
  db: Db,
  experimentId: string,
  assignment: Assignment,
  arms: readonly { readonly id: string }[],
  leftOut: ReadonlySet<string>,
): Promise<Map<string, IpwEstimate>> {
  const metric = assignment.metric ?? "ctr";
  const [people, counts] = await Promise.all([
    assignmentProbabilities(db, experimentId),
    // completion_rate needs only the participants' row; the others, their evaluation counts.
    metric === "completion_rate" ? null : evaluationCounts(db, experimentId).then(countsByParticipant),
  ]);
  const metricOf = (userId: string, finished: boolean): number | null => {
    if (metric === "completion_rate") return finished ? 1 : 0;
    const c = counts?.get(userId);
    if (metric === "ctr") return c && c.impressions > 0 ? c.feed_clicks / c.impressions : null;
    return c && c.plays > 0 ? c.likes / c.plays : null;
  };
  const perArm = new Map(arms.map((a) => [a.id, { values: [] as number[], probabilities: [] as number[] }]));
  for (const p of people) {
    const arm = perArm.get(p.group_id);
    const value = metricOf(p.user_id, p.finished);
    if (!arm || leftOut.has(p.user_id) || value === null) continue;
    arm.values.push(value);
    arm.probabilities.push(p.probability);
  }
  const seed = assignment.seed ?? 0;
  return new Map(
    arms.map((a, i) => {
      const { values, probabilities } = perArm.get(a.id) ?? { values: [], probabilities: [] };
      return [a.id, ipwEstimate(values, probabilities, armSeed(seed, i))];
    }),
  );
}

/**
 * Results per arm (api.md: `GET .../stats`), from the evaluation read model the projector keeps,
 * summed in the database (evaluationSums: a row per arm, not per participant): counts per group and
 * per recommender and surface, and rates with 95% intervals that treat each participant as a cluster
 * (see ratio.ts). Participants a researcher excluded from analysis are left
 * out of every count and rate, and counted per arm; simulated participants (dry runs) are left out
 * altogether unless `includeSimulated`. Never a scan of raw events; with adaptive assignment, also a
 * row per participant (ipwByArm: the weighted mean needs each one's own metric and probability).
 */
export function createStatsService({ db, now, ruleBreakers }: ServiceDeps & { ruleBreakers: RuleBreakers }) {
  return {
    async forExperiment(experimentId: string, options: StatsOptions = {}): Promise<ExperimentStats> {
      const [groups, manual, experiment] = await Promise.all([
        armsOf(db, experimentId, options),
        leftOutUsers(db, experimentId, options),
        experimentRow<{ assignment: unknown }>(db, experimentId, "assignment"),
      ]);
      const assignment = assignmentInForce(json<Assignment | null>(experiment?.assignment, null));
      // With the rules: who breaks them, among those the researcher's exclusions left in.
      const applied = options.exclusions === "rules" ? await rulesOf(db, experimentId) : null;
      const broken =
        applied && applied.rules.length > 0 ? await ruleBreakers(experimentId, applied.rules, manual) : null;
      const leftOut = broken === null || broken.size === 0 ? manual : new Set([...manual, ...broken.keys()]);
      const brokenIn = (groupId: string) =>
        [...(broken?.values() ?? [])].filter((b) => b.group_id === groupId);
      const [sums, latency, ipw] = await Promise.all([
        evaluationSums(db, experimentId, leftOut),
        armLatencies(db, experimentId, leftOut),
        assignment.method === "adaptive" ? ipwByArm(db, experimentId, assignment, groups, leftOut) : null,
      ]);
      const perArm = new Map(sums.flatMap((s) => ("group_id" in s ? [[s.group_id, s]] : [])));
      const arms = groups.map((g): GroupStats => {
        const byRules = brokenIn(g.id);
        return {
          group_id: g.id,
          name: g.name,
          participants: g.participants - byRules.length,
          excluded_participants: g.excluded,
          ...summarize(perArm.get(g.id) ?? NOTHING),
          latency_ms: latency(g.id),
          ...(applied
            ? {
                excluded_by_rules: byRules.length,
                rule_exclusions: perRule(
                  applied.rules,
                  byRules.map((b) => b.rules),
                ),
              }
            : {}),
          ...(ipw ? { ipw: ipw.get(g.id) } : {}),
        };
      });
      return {
        experiment_id: experimentId,
        generated_at: now().toISOString(),
        groups: arms,
        recommenders: sums
          .flatMap((s): RecommenderStats[] =>
            "surface" in s ? [{ key: s.recommender, surface: s.surface, ...summarize(s) }] : [],
          )
          .sort((a, b) => a.surface.localeCompare(b.surface) || a.key.localeCompare(b.key)),
        exclusions: applied ? "rules" : "manual",
        ...(applied
          ? {
              rules: {
                rules: applied.rules,
                balance: exclusionBalance(
                  arms.map((a) => ({ excluded: a.excluded_by_rules ?? 0, kept: a.participants })),
                ),
                changes: applied.changes,
              },
            }
          : {}),
      };
    },
  };
}

export type StatsService = ReturnType<typeof createStatsService>;
