import type { Knex } from "knex";

/**
 * Each survey response's verdict on the quality measures, stored beside it (api/src/surveys/verdicts.ts):
 * `straight_lined`, `attention_passed`, `attention_failed`. `GET .../quality` judged every response of
 * the experiment on every read (at 10,000 participants with three surveys, parsing 20,000 responses'
 * values took most of its time); it now sums these columns per participant in the database. The
 * responses already stored are judged here against their surveys' questions as they are.
 *
 * The judging below is frozen as it was when this migration was written (schemas/src/surveys/
 * attention.ts's `responseJudge` of that day): a migration does what it did, whatever today's code does.
 */

interface Question {
  readonly id: string;
  readonly type: string;
  readonly answers?: readonly { readonly value: number }[];
  readonly attention_answer?: number | readonly number[] | null;
}
type Chosen = Readonly<Record<string, readonly number[]>>;
interface Verdict {
  readonly straight_lined: boolean;
  readonly attention_passed: number;
  readonly attention_failed: number;
}

const STRAIGHT_LINE_MIN_ITEMS = 5;
const PAGE = 2000;

const parsed = <T>(value: unknown, fallback: T): T => {
  if (value === null || value === undefined) return fallback;
  if (typeof value !== "string") return value as T;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
};

const isCheck = (q: Question) => q.attention_answer !== undefined && q.attention_answer !== null;
const expectedOf = (q: Question): readonly number[] =>
  typeof q.attention_answer === "number" ? [q.attention_answer] : (q.attention_answer ?? []);

/** The judge of a survey's responses, or null when it has nothing to judge. */
function judgeOf(questions: readonly Question[]): ((chosen: Chosen) => Verdict) | null {
  const scales = new Map<string, string[]>();
  for (const q of questions) {
    if (q.type !== "single" || isCheck(q)) continue;
    const scale = JSON.stringify((q.answers ?? []).map((o) => o.value));
    scales.set(scale, [...(scales.get(scale) ?? []), q.id]);
  }
  const items = [...scales.values()].filter((ids) => ids.length >= STRAIGHT_LINE_MIN_ITEMS);
  const checks = questions.filter(isCheck).map((q) => ({ id: q.id, expected: new Set(expectedOf(q)) }));
  if (items.length === 0 && checks.length === 0) return null;
  const first = (chosen: Chosen, id: string) => (Object.hasOwn(chosen, id) ? chosen[id]?.[0] : undefined);
  return (chosen) => {
    const straight = items.some((ids) => {
      const answered = ids.map((id) => first(chosen, id)).filter((v) => v !== undefined);
      return answered.length >= STRAIGHT_LINE_MIN_ITEMS && answered.every((v) => v === answered[0]);
    });
    let passed = 0;
    let failed = 0;
    for (const c of checks) {
      const values = Object.hasOwn(chosen, c.id) ? (chosen[c.id] ?? []) : [];
      if (values.length === 0) continue;
      const set = new Set(values);
      if (set.size === c.expected.size && [...set].every((v) => c.expected.has(v))) passed++;
      else failed++;
    }
    return { straight_lined: straight, attention_passed: passed, attention_failed: failed };
  };
}

/** Judges every response of a survey against its questions, a page at a time, writing what changed. */
async function judgeSurvey(db: Knex, surveyId: string): Promise<void> {
  const survey = (await db("surveys").where({ id: surveyId }).first("questions")) as
    | { questions: unknown }
    | undefined;
  if (survey === undefined) return;
  const judge = judgeOf(parsed<Question[]>(survey.questions, []));
  if (judge === null) return;
  let after: string | null = null;
  for (;;) {
    const q = db("survey_responses")
      .where({ survey_id: surveyId })
      .orderBy("id")
      .limit(PAGE)
      .select("id", "answer_values");
    if (after !== null) q.where("id", ">", after);
    const rows = (await q) as { id: string; answer_values: string | null }[];
    if (rows.length === 0) return;
    after = rows.at(-1)?.id ?? null;
    // Only verdicts other than the new columns' defaults are written.
    const changed = rows
      .map((r) => ({ id: r.id, ...judge(parsed<Chosen>(r.answer_values, {})) }))
      .filter((v) => v.straight_lined || v.attention_passed > 0 || v.attention_failed > 0);
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

export async function up(db: Knex): Promise<void> {
  await db.raw(`alter table survey_responses
    add column straight_lined boolean not null default false,
    add column attention_passed integer not null default 0,
    add column attention_failed integer not null default 0`);
  const surveys = (await db("surveys").select("id")) as { id: string }[];
  for (const s of surveys) await judgeSurvey(db, s.id);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`alter table survey_responses drop column if exists straight_lined,
    drop column if exists attention_passed, drop column if exists attention_failed`);
}
