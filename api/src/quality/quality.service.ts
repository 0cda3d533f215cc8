import {
  EVENT_QUALITY_COLUMNS,
  type EventQualityColumns,
  eventQualityOf,
  joinEventQuality,
} from "@feedlab/projector";
import {
  type ExclusionRule,
  type ExperimentQuality,
  type ParticipantQuality,
  type QualityQuery,
  qualityFlags,
} from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { manyRows } from "@feedlab/sql";
import { exclusionRulesOf } from "../experiments/exclusion-rules.ts";
import { groupsOf } from "../groups/names.ts";
import { joinedUs, joinOrderPage, type Place } from "../http/join-order.ts";
import { participantRow } from "../participants/queries/users.queries.ts";
import { ruleHolds, rulesHolding } from "./rules.ts";
import {
  duplicateRecruitingIds,
  joinSurveyMeasures,
  SURVEY_MEASURE_COLUMNS,
  type SurveyMeasureColumns,
  surveyMeasuresOf,
} from "./survey-measures.ts";

/** Rounds a measure for the wire (seconds to the millisecond, shares to 4 places). */
const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/** A participant's quality and where they stand in join order (its `joined_us`, parsed when paged). */
interface Measured {
  readonly joinedUs: string;
  readonly quality: ParticipantQuality;
}

const placeOf = (m: Measured): Place => ({ us: BigInt(m.joinedUs), id: m.quality.user_id });

/**
 * Every participant's measures (api.md "Data quality and validity"), or only `userId`'s, in join
 * order: the events' from the quality read model's sums per participant, the surveys' from theirs
 * (both kept as they change), duplicates from the recruiting parameters, the flags past their
 * thresholds (QUALITY_THRESHOLDS) and whether `rules` exclude them. Two statements, each reading one
 * row per participant, so 10,000 participants cost what 10 do, times the rows; each participant's
 * record is built once.
 */
async function measureAll(
  db: Db,
  experimentId: string,
  keep: (u: { id: string; simulated: boolean }) => boolean,
  rulesRead: readonly ExclusionRule[] | Promise<readonly ExclusionRule[]>,
  userId?: string,
): Promise<Measured[]> {
  const users = db("users as u")
    .where("u.experiment_id", experimentId)
    .modify((q) => {
      if (userId !== undefined) q.where("u.id", userId);
    })
    .orderBy("u.created_at")
    .orderBy("u.id")
    .select("u.id", "u.login_id", "u.group_id", "u.simulated", db.raw(joinedUs("u")));
  // One row per participant: their events' sums and their surveys' beside them (a single statement:
  // the embedded database answers each statement's rows as one JSON text, so one of 10,000 rows costs
  // a third of three).
  const [rules, rows, duplicates] = await Promise.all([
    rulesRead,
    manyRows<
      {
        id: string;
        login_id: string;
        group_id: string | null;
        simulated: boolean;
        joined_us: string;
      } & EventQualityColumns &
        SurveyMeasureColumns
    >(db, joinSurveyMeasures(db, joinEventQuality(db, users, "u.id"), "u.id"), [
      "id",
      "login_id",
      "group_id",
      "simulated",
      "joined_us",
      ...EVENT_QUALITY_COLUMNS,
      ...SURVEY_MEASURE_COLUMNS,
    ]),
    duplicateRecruitingIds(db, experimentId, userId),
  ]);
  const measured: Measured[] = [];
  for (const u of rows) {
    if (!keep(u)) continue;
    const e = eventQualityOf(u.id, u);
    const s = surveyMeasuresOf(u);
    const quality: ParticipantQuality = {
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
      flags: [],
      excluded_by_rules: false,
    };
    quality.flags = qualityFlags(quality);
    quality.excluded_by_rules = rules.some((r) => ruleHolds(r, quality));
    measured.push({ joinedUs: u.joined_us, quality });
  }
  return measured;
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
  for (const { quality } of await measureAll(db, experimentId, (u) => !leftOut.has(u.id), rules)) {
    // A participant without an arm yet is in no arm's figures to exclude from.
    if (quality.excluded_by_rules && quality.group_id !== null) {
      broken.set(quality.user_id, { group_id: quality.group_id, rules: rulesHolding(rules, quality) });
    }
  }
  return broken;
}

/**
 * Every participant's quality (simulated ones only when included), in join order, with whether the
 * experiment's exclusion rules hold for them: what the participants CSV appends.
 */
export async function participantQualities(
  db: Db,
  experimentId: string,
  { includeSimulated = false, userId }: { includeSimulated?: boolean; userId?: string } = {},
): Promise<ParticipantQuality[]> {
  return (await qualitiesOf(db, experimentId, { includeSimulated, userId })).map((m) => m.quality);
}

/** Every participant's measures with their place in join order, the rules read beside them. */
async function qualitiesOf(
  db: Db,
  experimentId: string,
  { includeSimulated, userId }: { includeSimulated: boolean; userId?: string },
): Promise<Measured[]> {
  const rules = exclusionRulesOf(db, experimentId);
  return measureAll(db, experimentId, (u) => includeSimulated || !u.simulated, rules, userId);
}

/** `GET .../quality`: the groups' summary over every participant, and one page of participants. */
export function createQualityService({ db }: { db: Db }) {
  return {
    async forExperiment(experimentId: string, query: QualityQuery = {}): Promise<ExperimentQuality> {
      const [groups, all] = await Promise.all([
        groupsOf(db, experimentId), // 404 for an unknown experiment
        qualitiesOf(db, experimentId, { includeSimulated: query.include_simulated === true }),
      ]);
      const perGroup = Map.groupBy(all, (m) => m.quality.group_id);
      const matching = all.filter(
        (m) =>
          (query.flagged !== true || m.quality.flags.length > 0) &&
          (query.user_id === undefined || m.quality.user_id === query.user_id),
      );
      const { page, next_cursor, total } = joinOrderPage(matching, placeOf, query);
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
      const user = await participantRow<{ experiment_id: string }>(db, userId, "experiment_id");
      if (user === undefined) return null;
      const [one] = await participantQualities(db, user.experiment_id, { includeSimulated: true, userId });
      return one ?? null;
    },
  };
}

export type QualityService = ReturnType<typeof createQualityService>;
