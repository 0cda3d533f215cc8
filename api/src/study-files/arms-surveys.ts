import {
  DEFAULT_LANGUAGE,
  defaultText,
  type GroupCreate,
  type LocalizedText,
  type StudyDocument,
} from "@feedlab/schemas";
import { surveyOf } from "./export.ts";
import type { Run } from "./resources.ts";

/** The console's field names of an arm, as the document writes them. */
const armField = (f: string) => f.replace(/^algorithm_config/, "algorithm").replace(/^ui_config/, "ui");

/**
 * The document's arms, found by name in the experiment: created, changed, or (those it no longer
 * names) deleted, each as the console's arm requests would (a change to a running arm is recorded;
 * an arm with participants is not deleted).
 */
export async function applyArms(
  run: Run,
  recommenderKeys: ReadonlyMap<string, string>,
  layoutIds: ReadonlyMap<string, string>,
  admin: string | null,
): Promise<void> {
  const { s, ledger, experimentId } = run;
  const existing = new Map((await s.groups.list(experimentId)).map((g) => [g.name, g]));
  const rec = (key: string) => recommenderKeys.get(key) ?? key;
  const ui = (name: string) => layoutIds.get(name) ?? name;
  for (const [i, a] of run.doc.arms.entries()) {
    const input: GroupCreate = {
      name: a.name,
      weight: a.weight ?? 1,
      algorithm_config: { feed: rec(a.algorithm.feed), watch: rec(a.algorithm.watch) },
      ui_config: { feed: ui(a.ui.feed), watch: ui(a.ui.watch) },
      recommender_params: Object.fromEntries(
        Object.entries(a.recommender_params ?? {}).map(([k, v]) => [rec(k), v]),
      ),
      cap: a.cap ?? null,
      paused: a.paused ?? false,
    };
    const what = { resource: "arm" as const, name: a.name };
    const path = `arms[${i}]`;
    const current = existing.get(a.name);
    existing.delete(a.name);
    if (current) {
      await ledger.update(
        what,
        path,
        () => s.groups.get(current.id),
        () => s.groups.update(current.id, input, admin ?? undefined),
        armField,
      );
    } else if (await ledger.attempt(what, path, () => s.groups.create(experimentId, input), armField)) {
      ledger.add({ ...what, action: "create" });
    }
  }
  for (const g of existing.values()) {
    const what = { resource: "arm" as const, name: g.name };
    if (
      await ledger.attempt(what, "arms", async () => {
        await s.groups.remove(g.id);
        return true;
      })
    )
      ledger.add({ ...what, action: "delete" });
  }
}

/** The study's default language as the document sets it (else its first language, else English). */
export const documentDefaultLanguage = (doc: StudyDocument): string =>
  doc.default_language ?? doc.languages?.[0] ?? DEFAULT_LANGUAGE;

/**
 * The document's surveys, found by name (in the default language, when they have several) in the experiment: created, changed, activated or
 * deactivated, or (those it no longer names, when no one has answered them) deleted. Questions are
 * checked as the survey editor's are (`checkSurveyQuestions`: shapes and attention checks).
 */
export async function applySurveys(run: Run): Promise<void> {
  const { s, ledger, experimentId } = run;
  const stored = await s.surveys.list(experimentId);
  const before = new Map(stored.map((x) => [x.id, surveyOf(x)]));
  const key = (name: LocalizedText) => defaultText(name, documentDefaultLanguage(run.doc));
  const named = new Map(stored.map((x) => [key(x.name), x]));
  const wanted = new Map((run.doc.surveys ?? []).map((d) => [key(d.name), d]));
  // Those it no longer names go first, then deactivations: an activation below never meets an
  // active survey the document retires.
  for (const x of stored) {
    const name = key(x.name);
    if (wanted.has(name)) continue;
    const what = { resource: "survey" as const, name };
    if (x.response_count > 0) {
      ledger.add({
        ...what,
        action: "refused",
        code: "survey_has_responses",
        reason: `${x.response_count} participants answered "${name}"; applying never deletes responses. Keep it in the file (inactive), or delete it in the console.`,
      });
      continue;
    }
    if (
      await ledger.attempt(what, "surveys", async () => {
        await s.surveys.remove(x.id);
        return true;
      })
    )
      ledger.add({ ...what, action: "delete" });
  }
  for (const x of stored)
    if (x.is_active && wanted.get(key(x.name))?.active === false)
      await ledger.attempt({ resource: "survey", name: key(x.name) }, "surveys", () =>
        s.surveys.deactivate(x.id),
      );
  for (const [i, d] of (run.doc.surveys ?? []).entries()) {
    const what = { resource: "survey" as const, name: key(d.name) };
    const path = `surveys[${i}]`;
    const current = named.get(key(d.name));
    if (!current) {
      const made = await ledger.attempt(what, path, () =>
        s.surveys.create(experimentId, {
          kind: d.kind,
          name: d.name,
          questions: d.questions,
          is_active: d.active,
        }),
      );
      if (made) ledger.add({ ...what, action: "create" });
      continue;
    }
    await ledger.update(
      what,
      path,
      async () => surveyOf(await s.surveys.get(current.id)),
      async () => {
        await s.surveys.update(current.id, { name: d.name, questions: d.questions, kind: d.kind });
        if (d.active && !current.is_active) await s.surveys.activate(current.id);
      },
      undefined,
      undefined,
      // Measured from before the deactivations above, which are this survey's change too.
      before.get(current.id),
    );
  }
}
