import { eventQuality } from "@feedlab/projector";
import {
  type ExclusionRule,
  type ExperimentQuality,
  type ParticipantQuality,
  type QualityQuery,
  qualityFlags,
} from "@feedlab/schemas";
import { manyRows } from "@feedlab/sql";
import type { Db } from "../db/db.ts";
import { joinedUs, joinOrderPage, type Place } from "../http/join-order.ts";
import { armsOf } from "../results/arms.ts";
import { exclusionRulesOf } from "../results/rule-exclusions.ts";
import { rulesHolding } from "./rules.ts";
import { duplicateRecruitingIds, NO_SURVEYS, surveyMeasures } from "./survey-measures.ts";

/** Rounds a measure for the wire (seconds to the millisecond, shares to 4 places). */
const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/** A participant's measures and where they stand in join order. */
interface Measured {
  readonly place: Place;
  readonly quality: Omit<ParticipantQuality, "excluded_by_rules">;
}

/**
 * Every participant's measures (api.md "Data quality and validity"), or only `userId`'s, in join
 * order: the events' from the quality read model, the surveys' from the responses, duplicates from the
 * recruiting parameters, and the flags past their thresholds (QUALITY_THRESHOLDS). A few statements,
 * each over the whole experiment (or the one participant's rows), so 10,000 participants cost what 10
 * do, times the rows.
 */
async function measureAll(
  db: Db,
  experimentId: string,
  keep: (u: { id: string; simulated: boolean }) => boolean,
  userId?: string,
): Promise<Measured[]> {
  const [users, events, surveys, duplicates] = await Promise.all([
    manyRows<{ id: string; login_id: string; group_id: string; simulated: boolean; joined_us: string }>(
      db,
      db("users as u")
        .join("groups as g", "g.id", "u.group_id")
        .where("u.experiment_id", experimentId)
        .modify((q) => {
          if (userId !== undefined) q.where("u.id", userId);
        })
        .orderBy("u.created_at")
        .orderBy("u.id")
        .select("u.id", "u.login_id", "u.group_id", "u.simulated", db.raw(joinedUs("u"))),
    ),
    eventQuality(db, experimentId, userId),
    surveyMeasures(db, experimentId, userId),
    duplicateRecruitingIds(db, experimentId, userId),
  ]);
  const byUser = new Map(events.map((e) => [e.user_id, e]));
  return users.filter(keep).map((u) => {
    const e = byUser.get(u.id);
    const s = surveys.get(u.id) ?? NO_SURVEYS;
    const measures = {
      user_id: u.id,
      login_id: u.login_id,
      group_id: u.group_id,
      active_seconds: round(e?.active_seconds ?? 0, 3),
      visible_watch_seconds: round(e?.visible_watch_seconds ?? 0, 3),
      watch_seconds: round(e?.watch_seconds ?? 0, 3),
      hidden_share:
        e && e.visit_seconds > 0 ? round(Math.min(1, e.hidden_seconds / e.visit_seconds), 4) : null,
      pointer_events: e?.pointer_events ?? 0,
      viewport_width: e?.viewport_width ?? null,
      seconds_per_question: s.seconds_per_question === null ? null : round(s.seconds_per_question, 3),
      straight_lined: s.straight_lined,
      attention: s.attention,
      duplicate_recruiting_id: duplicates.has(u.id),
    };
    return {
      place: { us: BigInt(u.joined_us), id: u.id },
      quality: { ...measures, flags: qualityFlags(measures) },
    };
  });
}

/**
 * The exclusion rules each participant of an experiment breaks (api.md `GET .../stats?exclusions=rules`),
 * for those not `leftOut` (leftOutUsers: excluded by a researcher, simulated unless included); a
 * participant breaking none is absent. A null measure never holds (rules.ts).
 */
export async function excludedByRules(
  db: Db,
  experimentId: string,
  rules: readonly ExclusionRule[],
  leftOut: ReadonlySet<string>,
): Promise<Map<string, { group_id: string; rules: ExclusionRule[] }>> {
  const broken = new Map<string, { group_id: string; rules: ExclusionRule[] }>();
  if (rules.length === 0) return broken;
  for (const { quality } of await measureAll(db, experimentId, (u) => !leftOut.has(u.id))) {
    const holding = rulesHolding(rules, quality);
    if (holding.length > 0) broken.set(quality.user_id, { group_id: quality.group_id, rules: holding });
  }
  return broken;
}

/**
 * Every participant's quality (simulated ones only when included), in join order, with whether the
 * experiment's exclusion rules hold for them: what `GET .../quality` pages and the participants CSV
 * appends.
 */
export async function participantQualities(
  db: Db,
  experimentId: string,
  { includeSimulated = false, userId }: { includeSimulated?: boolean; userId?: string } = {},
): Promise<{ place: Place; quality: ParticipantQuality }[]> {
  const [rules, measured] = await Promise.all([
    exclusionRulesOf(db, experimentId),
    measureAll(db, experimentId, (u) => includeSimulated || !u.simulated, userId),
  ]);
  return measured.map((m) => ({
    place: m.place,
    quality: { ...m.quality, excluded_by_rules: rulesHolding(rules, m.quality).length > 0 },
  }));
}

/** `GET .../quality`: the groups' summary over every participant, and one page of participants. */
export function createQualityService({ db }: { db: Db }) {
  return {
    async forExperiment(experimentId: string, query: QualityQuery = {}): Promise<ExperimentQuality> {
      const groups = await armsOf(db, experimentId); // 404 for an unknown experiment
      const all = await participantQualities(db, experimentId, {
        includeSimulated: query.include_simulated === true,
      });
      const perGroup = Map.groupBy(all, (m) => m.quality.group_id);
      const matching = all.filter(
        (m) =>
          (query.flagged !== true || m.quality.flags.length > 0) &&
          (query.user_id === undefined || m.quality.user_id === query.user_id),
      );
      const { page, next_cursor, total } = joinOrderPage(matching, (m) => m.place, query);
      return {
        groups: groups.map((g) => {
          const list = perGroup.get(g.id) ?? [];
          return {
            group_id: g.id,
            name: g.name,
            participants: list.length,
            flagged: list.filter((m) => m.quality.flags.length > 0).length,
            excluded_by_rules: list.filter((m) => m.quality.excluded_by_rules).length,
          };
        }),
        participants: page.map((m) => m.quality),
        next_cursor,
        total,
      };
    },

    /**
     * `GET /api/v1/admin/participants/{user_id}/quality`: one participant's measures, simulated or not, read
     * from their own rows (the console's participant page; `.../quality?user_id=` also counts the groups);
     * null for an unknown participant.
     */
    async forParticipant(userId: string): Promise<ParticipantQuality | null> {
      const user = (await db("users").where({ id: userId }).first("experiment_id")) as
        | { experiment_id: string }
        | undefined;
      if (user === undefined) return null;
      const [one] = await participantQualities(db, user.experiment_id, { includeSimulated: true, userId });
      return one?.quality ?? null;
    },
  };
}

export type QualityService = ReturnType<typeof createQualityService>;
