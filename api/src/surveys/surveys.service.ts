import {
  type AdminSurvey,
  checkSurveyQuestions,
  defaultText,
  type LocalizedText,
  type ParticipantQuestion,
  type ParticipantSurvey,
  type Question,
  type ShapeProblem,
  type Survey,
  type SurveyCreate,
  type SurveyKind,
  type SurveyProblem,
  type SurveyUpdate,
  textIn,
} from "@feedlab/schemas";
import { iso, isUniqueViolation, json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { experimentExists, experimentRow } from "../experiments/queries/experiments.queries.ts";
import { canonicalSurveyTexts } from "../experiments/texts.ts";
import { conflict, type HttpError, notFound, unprocessable } from "../http/errors.ts";
import { refreshSurveyMeasures } from "../quality/survey-measures.ts";
import type { ParticipantLanguage } from "../study/language.ts";
import { respondentsOf } from "./queries/answers.queries.ts";
import { rejudgeSurvey } from "./verdicts.ts";

export interface SurveyRow {
  id: string;
  experiment_id: string;
  kind: SurveyKind;
  /** A string, or one text per language (jsonb since migration 035). */
  name: LocalizedText;
  is_active: boolean;
  questions: unknown;
  created_at: Date;
  updated_at: Date;
}

interface CountedRow extends SurveyRow {
  response_count: number | string;
  dismissal_count: number | string;
}

/** How often a survey was answered, and closed without an answer. */
interface SurveyCounts {
  readonly responses: number;
  readonly dismissals: number;
}

const NO_COUNTS: SurveyCounts = { responses: 0, dismissals: 0 };

const presentSurvey = (r: SurveyRow): Survey => ({
  id: r.id,
  experiment_id: r.experiment_id,
  kind: r.kind,
  name: r.name,
  is_active: r.is_active,
  // Questions saved before the `required` flag are required.
  questions: json<Question[]>(r.questions, []).map((q) => ({ ...q, required: q.required !== false })),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

/** A survey's questions with their texts in one language (api.md "Participant languages"). */
export const questionsIn = (
  questions: readonly Question[],
  { language, defaultLanguage }: ParticipantLanguage,
): ParticipantQuestion[] =>
  questions.map(({ attention_answer: _hidden, ...q }) => ({
    ...q,
    text: textIn(q.text, language, defaultLanguage),
    answers: q.answers.map((o) => ({ ...o, text: textIn(o.text, language, defaultLanguage) })),
  }));

/** A survey as researchers read it in exports: every text in the study's default language. */
export type ResearcherSurvey = Omit<AdminSurvey, "name" | "questions"> & {
  readonly name: string;
  readonly questions: readonly (ParticipantQuestion & Pick<Question, "attention_answer">)[];
};

export const researcherSurvey = (s: AdminSurvey, defaultLanguage: string): ResearcherSurvey => ({
  ...s,
  name: defaultText(s.name, defaultLanguage),
  questions: s.questions.map((q) => ({
    ...q,
    text: defaultText(q.text, defaultLanguage),
    answers: q.answers.map((o) => ({ ...o, text: defaultText(o.text, defaultLanguage) })),
  })),
});

/**
 * A survey as participants receive it: its texts in their language, and without the answer an
 * attention check expects (it stays on the server).
 */
export const presentParticipantSurvey = (r: SurveyRow, language: ParticipantLanguage): ParticipantSurvey => {
  const survey = presentSurvey(r);
  return {
    ...survey,
    name: textIn(survey.name, language.language, language.defaultLanguage),
    questions: questionsIn(survey.questions, language),
  };
};

const presentAdminSurvey = (r: SurveyRow, counts: SurveyCounts): AdminSurvey => {
  const survey = presentSurvey(r);
  return {
    ...survey,
    question_count: survey.questions.length,
    response_count: counts.responses,
    dismissal_count: counts.dismissals,
  };
};

/** A question with every field present: bounds null when not given, options [] when not given. */
function normalize(questions: SurveyCreate["questions"]): Question[] {
  return questions.map((q) => ({
    id: q.id,
    text: q.text,
    type: q.type,
    minSelect: q.minSelect ?? null,
    maxSelect: q.maxSelect ?? null,
    answers: (q.answers ?? []).map((o) => ({ id: o.id, text: o.text, value: o.value })),
    required: q.required !== false,
    // Stored only on attention checks, so other questions keep their shape.
    ...(q.attention_answer === undefined || q.attention_answer === null
      ? {}
      : { attention_answer: q.attention_answer }),
  }));
}

/** 422 `invalid_survey` naming the first offending question and rule; every problem in `problems`. */
function invalidSurvey(problems: readonly SurveyProblem[]): HttpError {
  const [first] = problems;
  const where = first?.question_id ? `question "${first.question_id}" (${first.field})` : first?.field;
  return unprocessable(
    "invalid_survey",
    first ? `The survey breaks a question rule at ${where}: ${first.message}.` : "The survey is invalid.",
    { ...first, problems },
  );
}

const dbError = (err: unknown) =>
  err as { code?: string; constraint?: string; detail?: string } | null | undefined;

export function createSurveysService({ db, newId, now }: ServiceDeps) {
  /** The shape and attention rules (api.md, Surveys; Data quality and validity): 422 `invalid_survey`. */
  function assertShape(questions: SurveyCreate["questions"]): void {
    const problems = checkSurveyQuestions(questions);
    if (problems.length > 0) throw invalidSurvey(problems);
  }

  async function activeConflict(experimentId: string, kind: SurveyKind): Promise<HttpError> {
    const active = (await db("surveys")
      .where({ experiment_id: experimentId, kind, is_active: true })
      .first("id", "name")) as { id: string; name: LocalizedText } | undefined;
    const experiment =
      active === undefined
        ? undefined
        : await experimentRow<{ default_language: string }>(db, experimentId, "default_language");
    const name =
      active === undefined || experiment === undefined
        ? null
        : defaultText(active.name, experiment.default_language);
    return conflict(
      "active_survey_exists",
      `Another ${kind} survey${name === null ? "" : ` ("${name}")`} is active in this experiment; deactivate it first.`,
      { kind, active_survey_id: active?.id ?? null },
    );
  }

  /**
   * Storage enforces the rules too (migration 020). The API checks them first, so these only fire on
   * a race (a second activation at the same instant, a survey deleted meanwhile): map them to the
   * same answers the checks give.
   */
  async function translate(err: unknown, experimentId: string, kind: SurveyKind): Promise<never> {
    const e = dbError(err);
    if (isUniqueViolation(err) && e?.constraint === "surveys_one_active_per_kind") {
      throw await activeConflict(experimentId, kind);
    }
    if (e?.code === "23514" && e.constraint === "surveys_question_shape") {
      const problem = json<ShapeProblem | null>(e.detail, null);
      throw invalidSurvey(problem ? [problem] : []);
    }
    if (e?.code === "23514" && e.constraint === "surveys_kind_immutable") {
      throw unprocessable("kind_immutable", "The kind of a survey is fixed after creation.", {
        field: "kind",
      });
    }
    if (e?.code === "23503") throw notFound("experiment");
    throw err;
  }

  async function countsOf(surveyId: string): Promise<SurveyCounts> {
    const [responses, dismissals] = await Promise.all(
      ["survey_responses", "survey_dismissals"].map((table) =>
        db(table).where({ survey_id: surveyId }).count<{ n: string | number }>({ n: "*" }).first(),
      ),
    );
    return { responses: Number(responses?.n ?? 0), dismissals: Number(dismissals?.n ?? 0) };
  }

  async function getRow(id: string): Promise<SurveyRow> {
    const row = await db<SurveyRow>("surveys").where({ id }).first();
    if (!row) throw notFound("survey");
    return row;
  }

  async function setActive(id: string, active: boolean): Promise<AdminSurvey> {
    const current = await getRow(id);
    if (current.is_active === active) return presentAdminSurvey(current, await countsOf(id));
    try {
      const [row] = (await db("surveys")
        .where({ id })
        .update({ is_active: active, updated_at: now() })
        .returning("*")) as SurveyRow[];
      if (!row) throw notFound("survey");
      return presentAdminSurvey(row, await countsOf(id));
    } catch (err) {
      return translate(err, current.experiment_id, current.kind);
    }
  }

  return {
    /** Creates a survey (a draft unless `is_active`); the shape rules run first (422 invalid_survey). */
    async create(experimentId: string, given: SurveyCreate): Promise<AdminSurvey> {
      assertShape(given.questions);
      const input = { ...given, ...canonicalSurveyTexts(given.name, given.questions) };
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      const at = now();
      const row: SurveyRow = {
        id: newId(),
        experiment_id: experimentId,
        kind: input.kind,
        name: input.name,
        is_active: input.is_active ?? false,
        questions: normalize(input.questions),
        created_at: at,
        updated_at: at,
      };
      try {
        await db("surveys").insert({
          ...row,
          name: JSON.stringify(row.name),
          questions: JSON.stringify(row.questions),
        });
      } catch (err) {
        return translate(err, experimentId, input.kind);
      }
      return presentAdminSurvey(row, NO_COUNTS);
    },

    /** The experiment's surveys, oldest first, each with its question and response counts. */
    async list(experimentId: string): Promise<AdminSurvey[]> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      const rows = (await db("surveys as s")
        .where("s.experiment_id", experimentId)
        .select("s.*")
        .select(
          db.raw("(select count(*) from survey_responses r where r.survey_id = s.id) as response_count"),
          db.raw("(select count(*) from survey_dismissals d where d.survey_id = s.id) as dismissal_count"),
        )
        .orderBy("s.created_at")
        .orderBy("s.id")) as CountedRow[];
      return rows.map((r) =>
        presentAdminSurvey(r, { responses: Number(r.response_count), dismissals: Number(r.dismissal_count) }),
      );
    },

    async get(id: string): Promise<AdminSurvey> {
      return presentAdminSurvey(await getRow(id), await countsOf(id));
    },

    /**
     * Replaces name and questions. Kind is fixed (a different `kind` -> 422 kind_immutable). Stored
     * responses keep their own snapshots, so editing a survey never alters submitted answers.
     */
    async update(id: string, given: SurveyUpdate): Promise<AdminSurvey> {
      const current = await getRow(id);
      if (given.kind !== undefined && given.kind !== current.kind) {
        throw unprocessable(
          "kind_immutable",
          `The kind of a survey is fixed after creation (this one is ${current.kind}).`,
          { field: "kind", kind: current.kind },
        );
      }
      assertShape(given.questions);
      const input = canonicalSurveyTexts(given.name, given.questions);
      try {
        // The responses' verdicts follow the questions (verdicts.ts): judged again with them.
        const row = await db.transaction(async (trx) => {
          const [updated] = (await trx("surveys")
            .where({ id })
            .update({
              name: JSON.stringify(input.name),
              questions: JSON.stringify(normalize(input.questions)),
              updated_at: now(),
            })
            .returning("*")) as SurveyRow[];
          if (updated) {
            await rejudgeSurvey(trx, id);
            await refreshSurveyMeasures(trx, updated.experiment_id, await respondentsOf(trx, id));
          }
          return updated;
        });
        if (!row) throw notFound("survey");
        return presentAdminSurvey(row, await countsOf(id));
      } catch (err) {
        return translate(err, current.experiment_id, current.kind);
      }
    },

    /**
     * Deletes the survey; its responses go with it (foreign key cascade), and its respondents' survey
     * measures are summed again without them.
     */
    async remove(id: string): Promise<void> {
      await db.transaction(async (trx) => {
        const survey = (await trx("surveys").where({ id }).forUpdate().first("experiment_id")) as
          | { experiment_id: string }
          | undefined;
        if (survey === undefined) throw notFound("survey");
        const respondents = await respondentsOf(trx, id);
        await trx("surveys").where({ id }).delete();
        await refreshSurveyMeasures(trx, survey.experiment_id, respondents);
      });
    },

    /**
     * The state table's activation toggle: 409 active_survey_exists when another survey of the same
     * kind is active in the experiment. The partial unique index decides, so two activations at the
     * same instant leave exactly one active survey. Activating an active survey changes nothing.
     */
    activate: (id: string) => setActive(id, true),

    deactivate: (id: string) => setActive(id, false),

    /** Throws 404 unless the survey exists. */
    async assertExists(id: string): Promise<SurveyRow> {
      return getRow(id);
    },
  };
}

export type SurveysService = ReturnType<typeof createSurveysService>;
