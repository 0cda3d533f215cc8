import { isDeepStrictEqual } from "node:util";
import {
  type Assignment,
  assignmentInForce,
  assignmentProblems,
  type Completion,
  canonicalLanguage,
  DEFAULT_LANGUAGE,
  type ExclusionRule,
  type Experiment,
  type ExperimentCreate,
  type ExperimentPatch,
  type ExperimentStatus,
  type LocalizedText,
  languageFor,
  type ProlificLink,
  type Reminders,
  type Schedule,
} from "@feedlab/schemas";
import type { Knex } from "knex";
import { addExperimentOwner } from "../auth/members.ts";
import { iso, json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { armsOf } from "../groups/queries/groups.queries.ts";
import { conflict, notFound, unprocessable } from "../http/errors.ts";
import { completionInForce, completionProblems, consentRequired } from "../study/completion.ts";
import { scheduleProblems } from "../study/schedule.ts";
import { assertExperiment } from "./exists.ts";
import { readinessProblems } from "./readiness.ts";
import { canonicalTextOr422 } from "./texts.ts";

interface ExperimentRow {
  id: string;
  name: string;
  description: string;
  status: ExperimentStatus;
  consent_text: LocalizedText | null;
  completion: unknown;
  exclusion_rules: unknown;
  min_response_ms: number | null;
  languages: unknown;
  default_language: string;
  language_switch: boolean;
  assignment: unknown;
  prolific: unknown;
  schedule: unknown;
  reminders: unknown;
  created_at: Date;
  updated_at: Date;
}

/** The linked Prolific study as stored, with its default `on_finish`; null when not linked. */
export function prolificLinkOf(stored: unknown): ProlificLink | null {
  const link = json<ProlificLink | null>(stored, null);
  return link === null ? null : { ...link, on_finish: link.on_finish ?? "review" };
}

const completionOrNull = (c: Completion | null) => (c ? completionInForce(c) : null);

const presentExperiment = (r: ExperimentRow): Experiment => ({
  id: r.id,
  name: r.name,
  description: r.description,
  status: r.status,
  consent_text: r.consent_text ?? null,
  completion: completionOrNull(json<Completion | null>(r.completion, null)),
  exclusion_rules: json<ExclusionRule[]>(r.exclusion_rules, []),
  min_response_ms: r.min_response_ms ?? null,
  languages: json<string[]>(r.languages, [DEFAULT_LANGUAGE]),
  default_language: r.default_language,
  language_switch: r.language_switch,
  assignment: assignmentInForce(json<Assignment | null>(r.assignment, null)),
  prolific: prolificLinkOf(r.prolific),
  schedule: json<Schedule | null>(r.schedule, null) ?? [],
  reminders: json<Reminders | null>(r.reminders, null),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export interface ExperimentsServiceDeps extends ServiceDeps {
  /** The server can send e-mail (FEEDLAB_SMTP_URL): reminders by e-mail may start. */
  readonly mailConfigured?: boolean;
  /** Called after a change the study flow's gate reads (status, consent text). */
  readonly onStudyChange?: () => void;
}

/** What the columns hold for a PATCH's study-flow fields: blank consent is none; completion as JSON. */
function studyColumns(patch: ExperimentPatch): Partial<Record<"consent_text" | "completion", string | null>> {
  const out: Partial<Record<"consent_text" | "completion", string | null>> = {};
  if (patch.consent_text !== undefined)
    out.consent_text = consentRequired(patch.consent_text)
      ? JSON.stringify(canonicalTextOr422(patch.consent_text, "consent_text"))
      : null;
  if (patch.completion !== undefined) {
    if (patch.completion) {
      const problems = completionProblems(patch.completion);
      if (problems.length > 0)
        throw unprocessable("invalid_completion", problems.map((p) => p.message).join(" "), {
          field: problems[0]?.field,
          problems,
        });
    }
    out.completion = patch.completion ? JSON.stringify(patch.completion) : null;
  }
  return out;
}

/**
 * What the columns hold for a PATCH's languages: the tags in canonical form (422 invalid_language for
 * one that is not BCP 47, or one listed twice), and a default among them (422
 * default_language_not_listed); new languages alone keep the default when it is still listed, else
 * the first listed becomes it.
 */
async function languageColumns(
  db: Knex,
  id: string,
  patch: ExperimentPatch,
): Promise<{ languages?: string; default_language?: string }> {
  if (patch.languages === undefined && patch.default_language === undefined) return {};
  const current = (await db("experiments").where({ id }).first("languages", "default_language")) as
    | { languages: unknown; default_language: string }
    | undefined;
  if (!current) throw notFound("experiment");
  const languages =
    patch.languages === undefined
      ? json<string[]>(current.languages, [DEFAULT_LANGUAGE])
      : canonical(patch.languages);
  let chosen = patch.default_language;
  if (chosen === undefined) {
    chosen = languages.includes(current.default_language) ? current.default_language : languages[0];
  } else {
    const listed = languageFor(chosen, languages);
    if (listed === null)
      throw unprocessable(
        "default_language_not_listed",
        `The default language "${chosen}" is not one of the study's languages (${languages.join(", ")}).`,
        { field: "default_language" },
      );
    chosen = listed;
  }
  return { languages: JSON.stringify(languages), default_language: chosen ?? DEFAULT_LANGUAGE };
}

/** Tags in canonical form; 422 invalid_language for one that is not BCP 47 or a repeat. */
function canonical(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const [i, tag] of tags.entries()) {
    const c = canonicalLanguage(tag);
    if (c === null)
      throw unprocessable("invalid_language", `"${tag}" is not a language tag (BCP 47: en, de, pt-BR).`, {
        field: `languages/${i}`,
      });
    if (out.includes(c))
      throw unprocessable("invalid_language", `"${tag}" is listed twice.`, { field: `languages/${i}` });
    out.push(c);
  }
  return out;
}

/** Keeps a change of an experiment's exclusion rules (none when they are the same as before). */
async function recordRuleChange(
  trx: Knex.Transaction,
  change: {
    experimentId: string;
    /** The experiment's status when the change was made. */
    status: ExperimentStatus;
    before: readonly ExclusionRule[];
    after: readonly ExclusionRule[];
    admin: string | null;
    at: Date;
  },
): Promise<void> {
  // Compared field by field: the database keeps a JSON object's keys in an order of its own.
  const same = (a: readonly ExclusionRule[], b: readonly ExclusionRule[]) =>
    a.length === b.length &&
    a.every((r, i) => r.measure === b[i]?.measure && r.op === b[i]?.op && r.value === b[i]?.value);
  if (same(change.before, change.after)) return;
  await trx("exclusion_rule_changes").insert({
    experiment_id: change.experimentId,
    at: change.at,
    admin: change.admin,
    status: change.status,
    before: JSON.stringify(change.before),
    after: JSON.stringify(change.after),
  });
}

export function createExperimentsService({
  db,
  newId,
  now,
  onStudyChange,
  mailConfigured = false,
}: ExperimentsServiceDeps) {
  /**
   * A PATCH's schedule and reminders, each with the other as it will stand, checked (api.md
   * "Longitudinal studies (wave 4)"): 422 invalid_schedule or invalid_reminders naming the field.
   */
  async function checkSchedule(
    id: string,
    schedule: Schedule | undefined,
    reminders: Reminders | null | undefined,
  ): Promise<void> {
    const stored = await db<ExperimentRow>("experiments").where({ id }).first("schedule", "reminders");
    if (!stored) throw notFound("experiment");
    const [problem] = scheduleProblems(
      schedule ?? json<Schedule | null>(stored.schedule, null) ?? [],
      reminders === undefined ? json<Reminders | null>(stored.reminders, null) : reminders,
    );
    if (problem) throw unprocessable(problem.code, problem.message, { field: problem.field });
  }

  /**
   * Whether `assignment` changes the experiment's method. api.md "Assignment (wave 4)": it changes only
   * while the experiment is a draft (409 assignment_locked), and what can be checked against its arms is
   * (422 invalid_assignment).
   */
  async function assignmentChanges(id: string, assignment: Assignment | null): Promise<boolean> {
    const current = (await db("experiments").where({ id }).first("status", "assignment")) as
      | { status: string; assignment: unknown }
      | undefined;
    if (!current) throw notFound("experiment");
    // Saving the same method again (the console's whole form, a study document) is no change.
    const same = isDeepStrictEqual(
      assignmentInForce(json<Assignment | null>(current.assignment, null)),
      assignmentInForce(assignment),
    );
    if (same) return false;
    if (current.status !== "draft")
      throw conflict(
        "assignment_locked",
        `How participants are assigned changes only while the experiment is a draft (it is ${current.status}): participants already assigned were assigned by the method in force.`,
      );
    if (assignment === null) return true;
    const weights = (await armsOf<{ weight: number }>(db, id, "weight")).map((a) => Number(a.weight));
    const problems = assignmentProblems(assignment, weights);
    if (problems.length > 0)
      throw unprocessable("invalid_assignment", problems.map((p) => p.message).join(" "), {
        field: problems[0]?.field,
        problems,
      });
    return true;
  }

  return {
    /** A new experiment; `ownerId`: the account that creates it, which becomes its owner (api.md "Teams"). */
    async create(
      input: ExperimentCreate,
      status: ExperimentStatus = "draft",
      ownerId?: string,
    ): Promise<Experiment> {
      const at = now();
      const row: ExperimentRow = {
        id: newId(),
        name: input.name,
        description: input.description ?? "",
        status,
        consent_text: null,
        completion: null,
        exclusion_rules: [],
        min_response_ms: null,
        languages: [DEFAULT_LANGUAGE],
        default_language: DEFAULT_LANGUAGE,
        language_switch: false,
        assignment: null,
        prolific: null,
        schedule: null,
        reminders: null,
        created_at: at,
        updated_at: at,
      };
      await db.transaction(async (trx) => {
        await trx("experiments").insert({
          ...row,
          exclusion_rules: "[]",
          languages: JSON.stringify(row.languages),
        });
        if (ownerId !== undefined) await addExperimentOwner(trx, row.id, ownerId, at);
      });
      return presentExperiment(row);
    },

    /** Newest first; `only`: just these experiments (a researcher's, api.md "Teams"). */
    async list(only?: readonly string[]): Promise<Experiment[]> {
      const q = db<ExperimentRow>("experiments").select("*").orderBy("created_at", "desc");
      if (only) q.whereIn("id", only);
      return (await q).map(presentExperiment);
    },

    async get(id: string): Promise<Experiment> {
      const row = await db<ExperimentRow>("experiments").where({ id }).first();
      if (!row) throw notFound("experiment");
      return presentExperiment(row);
    },

    /**
     * Changes the experiment. `admin`: who asks, recorded with a change of the exclusion rules (api.md
     * "Data quality and validity": a change is kept with who, when, before and after).
     */
    async update(id: string, patch: ExperimentPatch, admin: string | null = null): Promise<Experiment> {
      const {
        consent_text: _c,
        completion: _k,
        exclusion_rules: rules,
        languages: _l,
        default_language: _d,
        assignment,
        prolific,
        schedule,
        reminders,
        ...plain
      } = patch;
      if (schedule !== undefined || reminders !== undefined) await checkSchedule(id, schedule, reminders);
      const newAssignment = assignment !== undefined && (await assignmentChanges(id, assignment));
      const columns = {
        ...plain,
        ...studyColumns(patch),
        ...(rules === undefined ? {} : { exclusion_rules: JSON.stringify(rules) }),
        ...(await languageColumns(db, id, patch)),
        ...(prolific === undefined
          ? {}
          : { prolific: prolific === null ? null : JSON.stringify({ on_finish: "review", ...prolific }) }),
        ...(schedule === undefined
          ? {}
          : { schedule: schedule.length === 0 ? null : JSON.stringify(schedule) }),
        ...(reminders === undefined
          ? {}
          : { reminders: reminders === null ? null : JSON.stringify(reminders) }),
        ...(!newAssignment || assignment === undefined
          ? {}
          : { assignment: assignment === null ? null : JSON.stringify(assignment), assignment_state: null }),
      };
      if (patch.status === "running") {
        const current = await db<ExperimentRow>("experiments").where({ id }).first("status");
        if (!current) throw notFound("experiment");
        if (current.status !== "running") {
          const problems = await readinessProblems(db, id, { mailConfigured });
          if (problems.length > 0)
            throw unprocessable(
              "experiment_not_ready",
              `The experiment cannot start yet: ${problems.map((p) => p.message).join(" ")}`,
              { problems },
            );
        }
      }
      const row = await db.transaction(async (trx) => {
        const before =
          rules === undefined
            ? null
            : await trx<ExperimentRow>("experiments")
                .where({ id })
                .forUpdate()
                .first("exclusion_rules", "status");
        const [updated] = await trx<ExperimentRow>("experiments")
          .where({ id })
          .update({ ...columns, updated_at: now() })
          .returning("*");
        if (updated && before && rules !== undefined)
          await recordRuleChange(trx, {
            experimentId: id,
            status: before.status,
            before: json<ExclusionRule[]>(before.exclusion_rules, []),
            after: rules,
            admin,
            at: now(),
          });
        return updated;
      });
      if (!row) throw notFound("experiment");
      onStudyChange?.();
      return presentExperiment(row);
    },

    /** What keeps the experiment from starting; empty when it can. */
    async readiness(id: string) {
      await assertExperiment(db, id);
      return readinessProblems(db, id, { mailConfigured });
    },

    /** Deletes the experiment; groups, pool links and participants go with it (foreign keys cascade). */
  };
}

export type ExperimentsService = ReturnType<typeof createExperimentsService>;
