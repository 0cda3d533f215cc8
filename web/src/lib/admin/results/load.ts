import type { Attrition, Balance } from "@feedlab/schemas";
import type { ApiClient } from "../../api/client.ts";
import { experimentsApi } from "../../api/experiments.ts";
import { groupsApi } from "../../api/groups.ts";
import { recommendersApi } from "../../api/recommenders.ts";
import { resultsApi } from "../../api/results.ts";
import { surveysApi } from "../../api/surveys.ts";
import type { AdminSurvey } from "../../survey/types.ts";
import type {
  ArmChange,
  Experiment,
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
  /** How assignment stands now (arms' counts, caps, chances; covariates' balance). */
  readonly balance: Balance;
  /**
   * Who began each session and who lapsed, per arm: "none" for an experiment without a schedule (nobody
   * lapses), null when it could not be read (the rest of the page reads without it).
   */
  readonly attrition: Attrition | "none" | null;
  readonly loadedAt: Date;
}

/** At most this many pages of 1,000 participants are read for each list of the completeness card. */
const MAX_PAGES = 100;

/**
 * Completeness with the participants the card lists: those flagged and those whose clock is off,
 * wherever they are in join order, each list read a page of 1,000 at a time (a study's other
 * participants are not read: at 10,000 participants, reading every one took the page seconds).
 */
async function listedCompleteness(
  client: ApiClient,
  experimentId: string,
  threshold: number | undefined,
): Promise<ExperimentCompleteness> {
  const every = async (filter: { flagged: true } | { clock_off: true }) => {
    const first = await resultsApi.completeness(client, experimentId, { threshold, limit: 1000, ...filter });
    const participants = [...first.participants];
    let cursor = first.next_cursor;
    for (let page = 1; cursor && page < MAX_PAGES; page++) {
      const next = await resultsApi.completeness(client, experimentId, {
        threshold,
        limit: 1000,
        cursor,
        ...filter,
      });
      participants.push(...next.participants);
      cursor = next.next_cursor;
    }
    return { ...first, participants };
  };
  const [flagged, clocksOff] = await Promise.all([every({ flagged: true }), every({ clock_off: true })]);
  const listed = new Set(flagged.participants.map((p) => p.user_id));
  return {
    ...flagged,
    participants: [...flagged.participants, ...clocksOff.participants.filter((p) => !listed.has(p.user_id))],
    next_cursor: null,
  };
}

/** Everything the Results page shows of `experiment`; `threshold` is the completeness card's loss threshold. */
export async function loadResults(
  client: ApiClient,
  experiment: Pick<Experiment, "id" | "schedule">,
  threshold?: number,
): Promise<Results> {
  const experimentId = experiment.id;
  const [
    stats,
    withRules,
    monitor,
    completeness,
    timeline,
    groups,
    surveys,
    changes,
    recommenders,
    balance,
    attrition,
  ] = await Promise.all([
    resultsApi.stats(client, experimentId),
    resultsApi.stats(client, experimentId, "rules"),
    resultsApi.monitor(client, experimentId),
    listedCompleteness(client, experimentId, threshold),
    resultsApi.timeline(client, experimentId),
    groupsApi.list(client, experimentId),
    surveysApi.list(client, experimentId),
    experimentsApi.armChanges(client, experimentId),
    // Only for the external services' own descriptions: the page reads without them.
    recommendersApi.list(client).catch((): Recommender[] => []),
    resultsApi.balance(client, experimentId),
    experiment.schedule.length === 0
      ? ("none" as const)
      : resultsApi.attrition(client, experimentId).catch(() => null),
  ]);
  const keys = [
    ...new Set(groups.flatMap((g) => [g.algorithm_config.feed, g.algorithm_config.watch])),
  ].sort();
  const health = await Promise.all(
    keys.map((key) => recommendersApi.health(client, key, experimentId).catch(() => null)),
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
    balance,
    attrition,
    loadedAt: new Date(),
  };
}
