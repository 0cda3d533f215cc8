import {
  DEFAULT_LANGUAGE,
  type StudyApplied,
  type StudyChange,
  type StudyDocument,
  type StudyPlanBody,
} from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { assertExperiment } from "../experiments/exists.ts";
import { HttpError } from "../http/errors.ts";
import { applyArms, applySurveys, documentDefaultLanguage } from "./arms-surveys.ts";
import { exportStudy } from "./export.ts";
import { invalidDefinition, parseDefinition } from "./parse.ts";
import { applyLayouts, applyPool, applyRecommenders, type Run } from "./resources.ts";
import type { StudyServices } from "./services.ts";
import { Ledger } from "./step.ts";

/** 409: the console would refuse these changes (api.md); `details` lists them, nothing is applied. */
const refused = (refusals: readonly StudyChange[]) => {
  const first = refusals[0];
  return new HttpError(
    409,
    first?.code ?? "definition_refused",
    `${refusals.length === 1 ? "A change is" : `${refusals.length} changes are`} refused, so nothing was applied: ${refusals
      .map((r) => `${r.resource} "${r.name}": ${r.reason}`)
      .join(" ")}`,
    refusals,
  );
};

/** The experiment's own fields: created, or changed as the experiment page's saves would. */
async function applyExperiment(
  s: StudyServices,
  ledger: Ledger,
  doc: StudyDocument,
  experimentId: string | undefined,
  admin: Applier | null,
): Promise<string> {
  const patch = {
    name: doc.name,
    description: doc.description ?? "",
    consent_text: doc.consent_text ?? null,
    completion: doc.completion ?? null,
    exclusion_rules: doc.exclusion_rules ?? [],
    min_response_ms: doc.min_response_ms ?? null,
    languages: doc.languages ?? [DEFAULT_LANGUAGE],
    default_language: documentDefaultLanguage(doc),
    language_switch: doc.language_switch ?? false,
    assignment: doc.assignment ?? null,
    prolific: doc.prolific ?? null,
    schedule: doc.schedule ?? [],
    reminders: doc.reminders ?? null,
  };
  const what = { resource: "experiment" as const, name: doc.name };
  if (experimentId === undefined) {
    const made = await s.experiments.create(
      { name: doc.name, description: patch.description },
      "draft",
      admin?.adminId,
    );
    ledger.add({ ...what, action: "create" });
    await ledger.attempt(what, "", () => s.experiments.update(made.id, patch, admin?.username ?? null));
    return made.id;
  }
  await ledger.update(
    what,
    "",
    () => s.experiments.get(experimentId),
    () => s.experiments.update(experimentId, patch, admin?.username ?? null),
  );
  return experimentId;
}

/** Who applies a document: named in the records of what changed; the owner of an experiment it creates. */
interface Applier {
  readonly username: string;
  readonly adminId: string;
}

/** Thrown to roll a plan's transaction back once it has been worked out. */
class PlanOnly extends Error {}

export interface StudyFilesDeps {
  readonly db: Db;
  /** The console's services on a database handle (the composition root's `studyServicesOn`). */
  readonly servicesOn: (db: Db) => StudyServices;
  /**
   * The environment header references are read from (the server's own by default); only its
   * `FEEDLAB_SECRET_` names are ever read.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** After an apply commits: every process drops what it cached. */
  readonly onApplied?: (experimentId: string) => Promise<void>;
}

/**
 * Study documents (api.md "Study definitions and packages"; docs/study-files.md): export, plan and
 * apply. Applying runs the console's own services in one transaction, each change in a savepoint, so
 * a plan is an apply rolled back, and what the console refuses is refused here in its words.
 */
export function createStudyFilesService(deps: StudyFilesDeps) {
  const { db, servicesOn, env = process.env, onApplied } = deps;

  async function run(body: StudyPlanBody, commit: boolean, admin: Applier | null): Promise<StudyApplied> {
    const parsed = parseDefinition(body.definition);
    if (body.experiment_id !== undefined) await assertExperiment(db, body.experiment_id);
    let result: StudyApplied | null = null;
    try {
      await db.transaction(async (trx) => {
        const s = servicesOn(trx);
        const ledger = new Ledger(trx, parsed.where);
        const experimentId = await applyExperiment(s, ledger, parsed.document, body.experiment_id, admin);
        const r: Run = { db: trx, s, ledger, doc: parsed.document, experimentId, env };
        const keys = await applyRecommenders(r);
        const layouts = await applyLayouts(r);
        await applyPool(r);
        // Arms naming a recommender or layout the document got wrong would only repeat the problem.
        if (ledger.problems.length > 0) throw invalidDefinition(ledger.problems);
        await applyArms(r, keys, layouts, admin?.username ?? null);
        await applySurveys(r);
        if (ledger.problems.length > 0) throw invalidDefinition(ledger.problems);
        result = { experiment_id: experimentId, changes: ledger.changes };
        if (!commit) throw new PlanOnly();
        if (ledger.refusals.length > 0) throw refused(ledger.refusals);
      });
    } catch (err) {
      if (!(err instanceof PlanOnly)) throw err;
    }
    if (!result) throw new Error("a study run ended without a result");
    if (commit) await onApplied?.((result as StudyApplied).experiment_id);
    return result;
  }

  return {
    export: (experimentId: string) => exportStudy(db, servicesOn(db), experimentId),
    plan: async (body: StudyPlanBody) => ({ changes: (await run(body, false, null)).changes }),
    apply: (body: StudyPlanBody, admin: Applier | null) => run(body, true, admin),
  };
}

export type StudyFilesService = ReturnType<typeof createStudyFilesService>;
