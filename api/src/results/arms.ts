import type { EvaluationRow } from "@feedlab/projector";
import type { Db } from "@feedlab/sql";
import { assertExperiment } from "../experiments/exists.ts";
import { leftOutParticipantIds } from "../participants/queries/users.queries.ts";

/** An experiment's group as the results read it, with the participants assigned to it. */
export interface Arm {
  readonly id: string;
  readonly name: string;
  readonly weight: number;
  readonly algorithm_feed: string;
  readonly algorithm_watch: string;
  /**
   * Participants assigned to the group and analysed (not excluded by a researcher); simulated ones
   * only when the caller includes them.
   */
  readonly participants: number;
  /** Participants a researcher excluded from analysis (simulated ones as `participants` says). */
  readonly excluded: number;
  /**
   * Every real participant assigned to the group: what randomisation checks and the monitor count.
   * Never simulated ones (api.md "Simulated participants"), whatever the caller includes.
   */
  readonly assigned: number;
}

/** Whether a read of the results counts simulated participants (api.md `include_simulated`). */
export interface SimulatedOption {
  readonly includeSimulated?: boolean;
}

/**
 * The participants of an experiment a results read leaves out: those a researcher excluded from
 * analysis, and simulated ones unless the caller includes them.
 */
export async function leftOutUsers(
  db: Db,
  experimentId: string,
  { includeSimulated = false }: SimulatedOption = {},
): Promise<Set<string>> {
  return new Set(await leftOutParticipantIds(db, experimentId, includeSimulated));
}

/** An experiment's groups in creation order, with their participants; 404 for an unknown experiment. */
export async function armsOf(
  db: Db,
  experimentId: string,
  { includeSimulated = false }: SimulatedOption = {},
): Promise<Arm[]> {
  await assertExperiment(db, experimentId);
  const counted = includeSimulated ? "true" : "not u.simulated";
  const rows = (await db("groups as g")
    .leftJoin("users as u", "u.group_id", "g.id")
    .where("g.experiment_id", experimentId)
    .groupBy("g.id", "g.name", "g.weight", "g.algorithm_feed", "g.algorithm_watch", "g.created_at")
    .orderBy("g.created_at")
    .orderBy("g.id")
    .select(
      "g.id",
      "g.name",
      "g.weight",
      "g.algorithm_feed",
      "g.algorithm_watch",
      // `counted` is one of two literals above, never input.
      db.raw(`count(u.id) filter (where u.excluded_at is null and ${counted}) as participants`),
      db.raw(`count(u.id) filter (where u.excluded_at is not null and ${counted}) as excluded`),
      db.raw("count(u.id) filter (where not u.simulated) as assigned"),
    )) as (Omit<Arm, "weight" | "participants" | "excluded" | "assigned"> & {
    weight: number | string;
    participants: number | string;
    excluded: number | string;
    assigned: number | string;
  })[];
  return rows.map((r) => ({
    ...r,
    weight: Number(r.weight),
    participants: Number(r.participants),
    excluded: Number(r.excluded),
    assigned: Number(r.assigned),
  }));
}

/** A participant's evaluation counts, summed over their rows (surfaces, recommenders). */
export type ParticipantCounts = Record<
  "impressions" | "feed_clicks" | "plays" | "completions" | "likes",
  number
>;

/** Each participant's summed counts, by user id: the cluster every clustered rate treats as one. */
export function countsByParticipant(rows: readonly EvaluationRow[]): Map<string, ParticipantCounts> {
  const users = new Map<string, ParticipantCounts>();
  for (const r of rows) {
    const c = users.get(r.user_id) ?? { impressions: 0, feed_clicks: 0, plays: 0, completions: 0, likes: 0 };
    c.impressions += r.impressions;
    c.feed_clicks += r.feed_clicks;
    c.plays += r.plays;
    c.completions += r.completions;
    c.likes += r.likes;
    users.set(r.user_id, c);
  }
  return users;
}
