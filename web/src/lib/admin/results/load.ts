import type { ApiClient, ArmChange } from "../../api.ts";
import { surveyApi } from "../../survey/survey-api.ts";
import type { AdminSurvey } from "../../survey/types.ts";
import type {
  ExperimentCompleteness,
  ExperimentMonitor,
  ExperimentStats,
  ExperimentTimeline,
  Group,
  Recommender,
  RecommenderHealth,
} from "../../types.ts";

/** Everything the Results page shows, read in one go (and again on each refresh). */
export interface Results {
  readonly stats: ExperimentStats;
  /** The same with the experiment's pre-registered exclusion rules applied. */
  readonly withRules: ExperimentStats;
  readonly monitor: ExperimentMonitor;
  readonly completeness: ExperimentCompleteness;
  readonly timeline: ExperimentTimeline;
  readonly groups: Group[];
  readonly surveys: AdminSurvey[];
  /** The registry's records (built-ins included), for what each recommender does. */
  readonly recommenders: Recommender[];
  /** Health over the last 24 hours of each recommender an arm uses, for this experiment. */
  readonly health: RecommenderHealth[];
  /** Changes made to running arms, oldest first: where analyses may split an arm's data. */
  readonly changes: ArmChange[];
  readonly loadedAt: Date;
}

export async function loadResults(
  client: ApiClient,
  experimentId: string,
  threshold?: number,
): Promise<Results> {
  const [stats, withRules, monitor, completeness, timeline, groups, surveys, changes, recommenders] =
    await Promise.all([
      client.stats(experimentId),
      client.stats(experimentId, "rules"),
      client.monitor(experimentId),
      client.completeness(experimentId, threshold),
      client.timeline(experimentId),
      client.listGroups(experimentId),
      surveyApi.list(client, experimentId),
      client.armChanges(experimentId),
      // Only for the external services' own descriptions: the page reads without them.
      client.listRecommenders().catch((): Recommender[] => []),
    ]);
  const keys = [
    ...new Set(groups.flatMap((g) => [g.algorithm_config.feed, g.algorithm_config.watch])),
  ].sort();
  const health = await Promise.all(
    keys.map((key) => client.recommenderHealth(key, experimentId).catch(() => null)),
  );
  return {
    stats,
    withRules,
    monitor,
    completeness,
    timeline,
    groups,
    surveys,
    recommenders,
    health: health.filter((h): h is RecommenderHealth => h !== null),
    changes,
    loadedAt: new Date(),
  };
}
