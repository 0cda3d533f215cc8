import {
  type AnsweredSelections,
  type AttentionQuestion,
  attentionResult,
  straightLined,
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
 * response are absent: NO_SURVEYS). Two statements: the experiment's surveys, then its responses
 * (the participants' user_id index); the answers are judged by the shared pure functions of
 * schemas/src/surveys/attention.ts, against the survey's questions as they are now (a response's own
 * snapshot gives the values chosen).
 */
export async function surveyMeasures(db: Db, experimentId: string): Promise<Map<string, SurveyMeasures>> {
  const surveys = new Map(
    (
      (await db("surveys").where({ experiment_id: experimentId }).select("id", "questions")) as {
        id: string;
        questions: unknown;
      }[]
    ).map((s) => [s.id, json<AttentionQuestion[]>(s.questions, [])]),
  );
  if (surveys.size === 0) return new Map();
  const responses = (await db("survey_responses as r")
    .join("users as u", "u.id", "r.user_id")
    .where("u.experiment_id", experimentId)
    .select("r.user_id", "r.survey_id", "r.duration_ms", "r.answers")) as {
    user_id: string;
    survey_id: string;
    duration_ms: number | null;
    answers: unknown;
  }[];
  const sums = new Map<
    string,
    { ms: number; questions: number; straight: boolean; passed: number; failed: number }
  >();
  for (const r of responses) {
    const questions = surveys.get(r.survey_id) ?? [];
    const answers = json<AnsweredSelections[]>(r.answers, []);
    const s = sums.get(r.user_id) ?? { ms: 0, questions: 0, straight: false, passed: 0, failed: 0 };
    if (r.duration_ms !== null && questions.length > 0) {
      s.ms += r.duration_ms;
      s.questions += questions.length;
    }
    if (straightLined(questions, answers)) s.straight = true;
    const byQuestion = new Map(answers.map((a) => [a.questionId, a]));
    for (const q of questions) {
      const verdict = attentionResult(q, byQuestion.get(q.id));
      if (verdict === "passed") s.passed++;
      else if (verdict === "failed") s.failed++;
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
