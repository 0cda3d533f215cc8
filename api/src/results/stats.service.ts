import { type EvaluationRow, evaluationCounts } from "@feedlab/projector";
import type { ExperimentStats, GroupStats, RecommenderStats } from "@feedlab/schemas";
import type { ServiceDeps } from "../deps.ts";
import { armsOf, leftOutUsers, type SimulatedOption } from "./arms.ts";
import { type Cluster, clusteredRatio } from "./ratio.ts";

type Counts = Omit<GroupStats, "group_id" | "name" | "participants" | "excluded_participants">;

/** Sums participants' rows into counts and the three rates, each with its clustered interval. */
function summarize(rows: readonly EvaluationRow[]): Counts {
  // A participant may have several rows (surfaces, recommenders): one cluster each participant.
  const byUser = Map.groupBy(rows, (r) => r.user_id);
  const users = [...byUser.values()].map((list) => ({
    impressions: list.reduce((s, r) => s + r.impressions, 0),
    feed_clicks: list.reduce((s, r) => s + r.feed_clicks, 0),
    plays: list.reduce((s, r) => s + r.plays, 0),
    completions: list.reduce((s, r) => s + r.completions, 0),
    likes: list.reduce((s, r) => s + r.likes, 0),
  }));
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
export function createStatsService({ db, now }: ServiceDeps) {
  return {
    async forExperiment(experimentId: string, options: SimulatedOption = {}): Promise<ExperimentStats> {
      const [groups, all, leftOut] = await Promise.all([
        armsOf(db, experimentId, options),
        evaluationCounts(db, experimentId),
        leftOutUsers(db, experimentId, options),
      ]);
      const rows = leftOut.size === 0 ? all : all.filter((r) => !leftOut.has(r.user_id));
      const recommenders = Map.groupBy(rows, (r) => `${r.surface}\u0000${r.recommender}`);
      return {
        experiment_id: experimentId,
        generated_at: now().toISOString(),
        groups: groups.map(
          (g): GroupStats => ({
            group_id: g.id,
            name: g.name,
            participants: g.participants,
            excluded_participants: g.excluded,
            ...summarize(rows.filter((r) => r.group_id === g.id)),
          }),
        ),
        recommenders: [...recommenders.entries()]
          .map(([key, list]): RecommenderStats => {
            const [surface, recommender] = key.split("\u0000") as ["feed" | "watch", string];
            return { key: recommender, surface, ...summarize(list) };
          })
          .sort((a, b) => a.surface.localeCompare(b.surface) || a.key.localeCompare(b.key)),
      };
    },
  };
}

export type StatsService = ReturnType<typeof createStatsService>;
