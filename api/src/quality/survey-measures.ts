import {
  type AttentionQuestion,
  type ChosenValues,
  responseJudge,
} from "@feedlab/schemas/surveys/attention.ts";
import type { Db } from "../db/db.ts";
import { json } from "../db/present.ts";

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
 * Every participant's survey measures of an experiment, keyed by user id (participants without a
 * response are absent: NO_SURVEYS). Two statements: the experiment's surveys, then the values their
 * responses chose (`answer_values`, made from the answers by a trigger: migration 031; the whole
 * snapshots are not read); each survey's `responseJudge` (schemas/src/surveys/attention.ts, the
 * definitions of straight-lining and attention checks) judges its responses against the survey's
 * questions as they are now (a response's own snapshot gives the values chosen).
 */
export async function surveyMeasures(db: Db, experimentId: string): Promise<Map<string, SurveyMeasures>> {
  const surveys = new Map(
    (
      (await db("surveys").where({ experiment_id: experimentId }).select("id", "questions")) as {
        id: string;
        questions: unknown;
      }[]
    ).map((s) => {
      const questions = json<AttentionQuestion[]>(s.questions, []);
      return [s.id, { questions: questions.length, judge: responseJudge(questions) }];
    }),
  );
  if (surveys.size === 0) return new Map();
  const responses = (await db("survey_responses")
    .whereIn("survey_id", [...surveys.keys()])
    .select(
      "user_id",
      "survey_id",
      "duration_ms",
      // The chosen values only when a survey has something to judge by them.
      [...surveys.values()].some((s) => s.judge !== null) ? "answer_values" : db.raw("null as answer_values"),
    )) as {
    user_id: string;
    survey_id: string;
    duration_ms: number | null;
    answer_values: string | null;
  }[];
  const sums = new Map<
    string,
    { ms: number; questions: number; straight: boolean; passed: number; failed: number }
  >();
  for (const r of responses) {
    const survey = surveys.get(r.survey_id);
    if (survey === undefined) continue;
    const s = sums.get(r.user_id) ?? { ms: 0, questions: 0, straight: false, passed: 0, failed: 0 };
    if (r.duration_ms !== null && survey.questions > 0) {
      s.ms += r.duration_ms;
      s.questions += survey.questions;
    }
    if (survey.judge !== null) {
      const judged = survey.judge(
        r.answer_values === null ? {} : (JSON.parse(r.answer_values) as ChosenValues),
      );
      if (judged.straight_lined) s.straight = true;
      s.passed += judged.passed;
      s.failed += judged.failed;
    }
    sums.set(r.user_id, s);
  }
  return new Map(
    [...sums].map(([user, s]) => [
      user,
      {
        seconds_per_question: s.questions === 0 ? null : s.ms / 1000 / s.questions,
        straight_lined: s.straight,
        attention: { passed: s.passed, failed: s.failed },
      },
    ]),
  );
}

/** The recruiting parameters that identify a person on a recruiting platform. */
const PERSON_IDS = ["PROLIFIC_PID", "workerId"] as const;

/**
 * The participants of an experiment whose PROLIFIC_PID or workerId appears under another login of
 * the same experiment (every participant counts, simulated or excluded: a duplicate is one whoever
 * else holds the id). One statement over the experiment's users.
 */
export async function duplicateRecruitingIds(db: Db, experimentId: string): Promise<Set<string>> {
  const rows = (await db("users")
    .where({ experiment_id: experimentId })
    .whereNotNull("recruiting")
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
