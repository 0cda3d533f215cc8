import { type EvaluationSums, evaluationSums } from "@feedlab/projector";
import type { ExclusionRule, ExperimentStats, GroupStats, RecommenderStats } from "@feedlab/schemas";
import type { ServiceDeps } from "../deps.ts";
import { armsOf, leftOutUsers, type SimulatedOption } from "./arms.ts";
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
 * Results per arm (api.md: `GET .../stats`), from the evaluation read model the projector keeps,
 * summed in the database (evaluationSums: a row per arm, not per participant): counts per group and
 * per recommender and surface, and rates with 95% intervals that treat each participant as a cluster
 * (see ratio.ts). Participants a researcher excluded from analysis are left
 * out of every count and rate, and counted per arm; simulated participants (dry runs) are left out
 * altogether unless `includeSimulated`. Never a scan of raw events.
 */
export function createStatsService({ db, now, ruleBreakers }: ServiceDeps & { ruleBreakers: RuleBreakers }) {
  return {
    async forExperiment(experimentId: string, options: StatsOptions = {}): Promise<ExperimentStats> {
      const [groups, manual] = await Promise.all([
        armsOf(db, experimentId, options),
        leftOutUsers(db, experimentId, options),
      ]);
      // With the rules: who breaks them, among those the researcher's exclusions left in.
      const applied = options.exclusions === "rules" ? await rulesOf(db, experimentId) : null;
      const broken =
        applied && applied.rules.length > 0 ? await ruleBreakers(experimentId, applied.rules, manual) : null;
      const leftOut = broken === null || broken.size === 0 ? manual : new Set([...manual, ...broken.keys()]);
      const brokenIn = (groupId: string) =>
        [...(broken?.values() ?? [])].filter((b) => b.group_id === groupId);
      const [sums, latency] = await Promise.all([
        evaluationSums(db, experimentId, leftOut),
        armLatencies(db, experimentId, leftOut),
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
