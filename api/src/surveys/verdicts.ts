import {
  type AttentionQuestion,
  type ChosenValues,
  type ResponseVerdict,
  responseJudge,
} from "@feedlab/schemas/surveys/attention.ts";
import type { Knex } from "knex";
import { json } from "../db/present.ts";

/**
 * Each survey response's verdict on the quality measures (docs/quality.md, "Surveys"): whether it is
 * straight-lined and how many attention checks it passed and failed, stored beside it
 * (`straight_lined`, `attention_passed`, `attention_failed`: migration 032) so that an experiment's
 * quality sums them in the database instead of judging every response's answers on every read.
 * A verdict follows the survey's questions as they are now: a response is judged when it is stored,
 * and a survey's responses again whenever its questions are replaced (`rejudgeSurvey`), in the same
 * transaction. Both go through `responseJudge` (schemas/src/surveys/attention.ts), the one definition.
 */

/** The verdict columns of a response with nothing to judge. */
export const NO_VERDICT = { straight_lined: false, attention_passed: 0, attention_failed: 0 } as const;

/** The columns of a verdict. */
const columns = (v: ResponseVerdict) => ({
  straight_lined: v.straight_lined,
  attention_passed: v.passed,
  attention_failed: v.failed,
});

/** The values a response chose per question, as migration 031's `answer_values` holds them. */
function chosenValues(answers: readonly { questionId: string; selections: readonly { value: number }[] }[]) {
  const chosen: Record<string, number[]> = {};
  for (const a of answers) {
    if (a.selections.length > 0) chosen[a.questionId] = a.selections.map((s) => s.value);
  }
  return chosen;
}

/** The verdict columns of a new response to a survey with these questions. */
export function verdictOf(
  questions: readonly AttentionQuestion[],
  answers: readonly { questionId: string; selections: readonly { value: number }[] }[],
): typeof NO_VERDICT | ReturnType<typeof columns> {
  const judge = responseJudge(questions);
  return judge === null ? NO_VERDICT : columns(judge(chosenValues(answers)));
}

/** Responses judged and written back per statement. */
const PAGE = 2000;

/**
 * Judges every response of a survey again against its questions as stored now, a page at a time (in id
 * order), and writes the verdicts that changed. Run in the transaction that replaced the questions (and
 * by migration 032 for the responses stored before it). Answers how many responses it read.
 */
export async function rejudgeSurvey(db: Knex | Knex.Transaction, surveyId: string): Promise<number> {
  const survey = (await db("surveys").where({ id: surveyId }).first("questions")) as
    | { questions: unknown }
    | undefined;
  if (survey === undefined) return 0;
  const judge = responseJudge(json<AttentionQuestion[]>(survey.questions, []));
  let after: string | null = null;
  let read = 0;
  for (;;) {
    const q = db("survey_responses")
      .where({ survey_id: surveyId })
      .orderBy("id")
      .limit(PAGE)
      .select("id", "answer_values", "straight_lined", "attention_passed", "attention_failed");
    if (after !== null) q.where("id", ">", after);
    const rows = (await q) as {
      id: string;
      answer_values: string | null;
      straight_lined: boolean;
      attention_passed: number;
      attention_failed: number;
    }[];
    if (rows.length === 0) return read;
    read += rows.length;
    after = rows.at(-1)?.id ?? null;
    const changed = rows.flatMap((r) => {
      const v = judge === null ? NO_VERDICT : columns(judge(json<ChosenValues>(r.answer_values, {})));
      const same =
        v.straight_lined === r.straight_lined &&
        v.attention_passed === Number(r.attention_passed) &&
        v.attention_failed === Number(r.attention_failed);
      return same ? [] : [{ id: r.id, ...v }];
    });
    if (changed.length > 0) {
      await db.raw(
        `update survey_responses as r set straight_lined = v.straight_lined,
           attention_passed = v.attention_passed, attention_failed = v.attention_failed
         from json_to_recordset(?::json) as v(id uuid, straight_lined boolean, attention_passed int,
           attention_failed int)
         where r.id = v.id`,
        [JSON.stringify(changed)],
      );
    }
  }
}
