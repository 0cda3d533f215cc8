import { type EvaluationRow, evaluationCounts } from "@feedlab/projector";
import type { ExclusionRule, ExperimentStats, GroupStats, RecommenderStats } from "@feedlab/schemas";
import type { ServiceDeps } from "../deps.ts";
import { armsOf, countsByParticipant, leftOutUsers, type SimulatedOption } from "./arms.ts";
import { armLatencies } from "./latency.ts";
import { type Cluster, clusteredRatio } from "./ratio.ts";
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

/** Sums participants' rows into counts and the three rates, each with its clustered interval. */
function summarize(rows: readonly EvaluationRow[]): Counts {
  // A participant may have several rows (surfaces, recommenders): one cluster each participant.
  const users = [...countsByParticipant(rows).values()];
  const total = (k: keyof (typeof users)[number]) => users.reduce((s, u) => s + u[k], 0);
  const clusters = (y: keyof (typeof users)[number], x: keyof (typeof users)[number]): Cluster[] =>
    users.map((u) => ({ y: u[y], x: u[x] }));
  return {
    impressions: total("impressions"),
    feed_clicks: total("feed_clicks"),
    plays: total("plays"),
    completions: total("completions"),
    likes: total("likes"),
    ctr: clusteredRatio(clusters("feed_clicks", "impressions")),
    completion_rate: clusteredRatio(clusters("completions", "plays")),
    like_rate: clusteredRatio(clusters("likes", "plays")),
  };
}

/**
 * Results per arm (api.md: `GET .../stats`), from the evaluation read model the projector keeps:
 * counts per group and per recommender and surface, and rates with 95% intervals that treat each
 * participant as a cluster (see ratio.ts). Participants a researcher excluded from analysis are left
 * out of every count and rate, and counted per arm; simulated participants (dry runs) are left out
 * altogether unless `includeSimulated`. Never a scan of raw events.
 */
export function createStatsService({ db, now, ruleBreakers }: ServiceDeps & { ruleBreakers: RuleBreakers }) {
  return {
    async forExperiment(experimentId: string, options: StatsOptions = {}): Promise<ExperimentStats> {
      const [groups, all, manual] = await Promise.all([
        armsOf(db, experimentId, options),
        evaluationCounts(db, experimentId),
        leftOutUsers(db, experimentId, options),
      ]);
      // With the rules: who breaks them, among those the researcher's exclusions left in.
      const applied = options.exclusions === "rules" ? await rulesOf(db, experimentId) : null;
      const broken =
        applied && applied.rules.length > 0 ? await ruleBreakers(experimentId, applied.rules, manual) : null;
      const leftOut = broken === null || broken.size === 0 ? manual : new Set([...manual, ...broken.keys()]);
      const brokenIn = (groupId: string) =>
        [...(broken?.values() ?? [])].filter((b) => b.group_id === groupId);
      const rows = leftOut.size === 0 ? all : all.filter((r) => !leftOut.has(r.user_id));
      const latency = await armLatencies(db, experimentId, leftOut);
      const recommenders = Map.groupBy(rows, (r) => `${r.surface}\u0000${r.recommender}`);
      const arms = groups.map((g): GroupStats => {
        const byRules = brokenIn(g.id);
        return {
          group_id: g.id,
          name: g.name,
          participants: g.participants - byRules.length,
          excluded_participants: g.excluded,
          ...summarize(rows.filter((r) => r.group_id === g.id)),
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
        recommenders: [...recommenders.entries()]
          .map(([key, list]): RecommenderStats => {
            const [surface, recommender] = key.split("\u0000") as ["feed" | "watch", string];
            return { key: recommender, surface, ...summarize(list) };
          })
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
