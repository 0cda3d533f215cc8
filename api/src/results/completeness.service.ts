import {
  COMPLETENESS_COLUMNS,
  type CompletenessColumns,
  completenessOf,
  completenessSums,
} from "@feedlab/projector";
import { type CompletenessQuery, clockOff, type ExperimentCompleteness } from "@feedlab/schemas";
import { manyRows } from "@feedlab/sql";
import type { ServiceDeps } from "../deps.ts";
import { groupsOf } from "../groups/names.ts";
import { joinedUs, joinOrderPage } from "../http/join-order.ts";

/** The share of numbered events lost: gaps over what the client numbered; null with nothing numbered. */
const lossRate = (numbered: number, missing: number): number | null =>
  numbered + missing === 0 ? null : missing / (numbered + missing);

/**
 * Data completeness (api.md: `GET .../completeness`): the gaps in each session's client sequence
 * numbers, summed per participant and group, from the session activity read model. A participant
 * whose loss rate is above the threshold is flagged. Beside it, the client clocks: each participant's
 * offset and the events whose client time is implausible. Simulated participants (dry runs) are left
 * out unless `include_simulated`. The groups count every participant; `participants` is one page of
 * those the filters keep (`gaps`, `flagged`), in join order.
 */
export function createCompletenessService({ db }: ServiceDeps) {
  return {
    async forExperiment(
      experimentId: string,
      query: CompletenessQuery = {},
    ): Promise<ExperimentCompleteness> {
      const threshold = query.threshold ?? 0.05;
      const users = db("users as u").where("u.experiment_id", experimentId);
      if (query.include_simulated !== true) users.where("u.simulated", false);
      // One row per participant, their sessions' sums beside them: one statement (on the embedded
      // database, one JSON text of 10,000 rows where two cost twice).
      const [groups, participantRows] = await Promise.all([
        groupsOf(db, experimentId),
        manyRows<{ id: string; login_id: string; group_id: string; joined_us: string } & CompletenessColumns>(
          db,
          users
            .leftJoin(completenessSums(db, experimentId).as("c"), "c.user_id", "u.id")
            .orderBy("u.created_at")
            .orderBy("u.id")
            .select(
              "u.id",
              "u.login_id",
              "u.group_id",
              db.raw(joinedUs("u")),
              ...COMPLETENESS_COLUMNS.map((c) => `c.${c}`),
            ),
          ["id", "login_id", "group_id", "joined_us", ...COMPLETENESS_COLUMNS],
        ),
      ]);
      const participants = participantRows.map((u) => {
        const c = completenessOf(u.id, u);
        const numbered = c.numbered;
        const missing = c.missing;
        const loss_rate = lossRate(numbered, missing);
        return {
          user_id: u.id,
          login_id: u.login_id,
          group_id: u.group_id,
          sessions: c.sessions,
          events: c.events,
          missing,
          loss_rate,
          flagged: loss_rate !== null && loss_rate > threshold,
          // The session whose clock was furthest off speaks for the participant.
          clock_offset_ms: c.clock_offset_ms,
          implausible_times: c.implausible_times,
          numbered,
          place: { us: BigInt(u.joined_us), id: u.id },
        };
      });
      const perGroup = Map.groupBy(participants, (p) => p.group_id);
      const matching = participants.filter(
        (p) =>
          (query.gaps !== true || p.missing > 0) &&
          (query.flagged !== true || p.flagged) &&
          (query.clock_off !== true || clockOff(p)),
      );
      const { page, next_cursor, total } = joinOrderPage(matching, (p) => p.place, query);
      return {
        threshold,
        groups: groups.map((g) => {
          const list = perGroup.get(g.id) ?? [];
          const numbered = list.reduce((s, p) => s + p.numbered, 0);
          const missing = list.reduce((s, p) => s + p.missing, 0);
          return {
            group_id: g.id,
            name: g.name,
            participants: list.length,
            events: list.reduce((s, p) => s + p.events, 0),
            missing,
            loss_rate: lossRate(numbered, missing),
            flagged: list.filter((p) => p.flagged).length,
            implausible_times: list.reduce((s, p) => s + p.implausible_times, 0),
          };
        }),
        participants: page.map(({ numbered: _, place: _p, ...p }) => p),
        next_cursor,
        total,
      };
    },
  };
}

export type CompletenessService = ReturnType<typeof createCompletenessService>;
