import { manyRows } from "@feedlab/sql";
import type { Db } from "../db/db.ts";

/** A participant's survey-side measures (docs/quality.md, "Surveys"). */
export interface SurveyMeasures {
  /** Timed responses' duration_ms summed over their surveys' questions, in seconds; null without one. */
  readonly seconds_per_question: number | null;
  /** Any response straight-lined (`straightLined`). */
  readonly straight_lined: boolean;
  readonly attention: { readonly passed: number; readonly failed: number };
}

export const NO_SURVEYS: SurveyMeasures = {
  seconds_per_question: null,
  straight_lined: false,
  attention: { passed: 0, failed: 0 },
};

/**
 * Every participant's survey measures of an experiment, or only `userId`'s, keyed by user id
 * (participants without a response are absent: NO_SURVEYS). One statement: each response's verdict is
 * stored beside it (api/src/surveys/verdicts.ts: judged by `responseJudge` against its survey's
 * questions as they are now), so the database sums them per participant with the timed responses'
 * durations and their surveys' question counts.
 */
export async function surveyMeasures(
  db: Db,
  experimentId: string,
  userId?: string,
): Promise<Map<string, SurveyMeasures>> {
  // The surveys' question counts once, before the join (flattened into it, PostgreSQL counted each
  // response's survey questions again: three times the statement's time).
  const rows = await manyRows<{
    user_id: string;
    ms: number | null;
    questions: string | number | null;
    straight_lined: boolean;
    passed: string | number;
    failed: string | number;
  }>(
    db,
    db
      .withMaterialized(
        "s",
        db("surveys")
          .where({ experiment_id: experimentId })
          .select("id", db.raw("jsonb_array_length(questions) as questions")),
      )
      .from("survey_responses as r")
      .join("s", "s.id", "r.survey_id")
      .modify((q) => {
        if (userId !== undefined) q.where("r.user_id", userId);
      })
      .groupBy("r.user_id")
      .select(
        "r.user_id",
        db.raw(
          "sum(r.duration_ms::float8) filter (where r.duration_ms is not null and s.questions > 0) as ms",
        ),
        db.raw("sum(s.questions) filter (where r.duration_ms is not null and s.questions > 0) as questions"),
        db.raw("bool_or(r.straight_lined) as straight_lined"),
        db.raw("sum(r.attention_passed) as passed"),
        db.raw("sum(r.attention_failed) as failed"),
      ),
  );
  return new Map(
    rows.map((r) => [
      r.user_id,
      {
        seconds_per_question: r.questions === null ? null : Number(r.ms) / 1000 / Number(r.questions),
        straight_lined: r.straight_lined,
        attention: { passed: Number(r.passed), failed: Number(r.failed) },
      },
    ]),
  );
}

/** The recruiting parameters that identify a person on a recruiting platform. */
const PERSON_IDS = ["PROLIFIC_PID", "workerId"] as const;

/**
 * The participants of an experiment whose PROLIFIC_PID or workerId appears under another login of
 * the same experiment (every participant counts, simulated or excluded: a duplicate is one whoever
 * else holds the id). One statement over the experiment's users; with `userId`, over those who share
 * one of that participant's ids.
 */
export async function duplicateRecruitingIds(
  db: Db,
  experimentId: string,
  userId?: string,
): Promise<Set<string>> {
  const rows = (await db("users")
    .where({ experiment_id: experimentId })
    .whereNotNull("recruiting")
    .modify((q) => {
      if (userId === undefined) return;
      q.where((w) => {
        for (const k of PERSON_IDS) {
          w.orWhereRaw(
            `nullif(btrim(recruiting->>?), '') =
               (select nullif(btrim(me.recruiting->>?), '') from users me where me.id = ?)`,
            [k, k, userId],
          );
        }
      });
    })
    .select("id", ...PERSON_IDS.map((k) => db.raw("nullif(btrim(recruiting->>?), '') as ??", [k, k])))) as ({
    id: string;
  } & Record<(typeof PERSON_IDS)[number], string | null>)[];
  const holders = new Map<string, string[]>();
  for (const r of rows) {
    for (const k of PERSON_IDS) {
      const v = r[k];
      if (v === null) continue;
      const key = `${k}\u0000${v}`;
      holders.set(key, [...(holders.get(key) ?? []), r.id]);
    }
  }
  const dup = new Set<string>();
  for (const users of holders.values()) if (users.length > 1) for (const u of users) dup.add(u);
  return dup;
}
