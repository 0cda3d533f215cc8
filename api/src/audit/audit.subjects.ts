import type { AuditAction } from "@feedlab/schemas";
import type { Knex } from "knex";
import { BUILTIN_RECOMMENDERS } from "../recommenders/builtins.ts";
import { storedRecommenderLabels } from "../recommenders/queries/recommenders.queries.ts";

/** The kinds of things an audit entry names. */
type SubjectKind = "experiment" | "arm" | "survey" | "layout" | "recommender" | "video" | "participant";

/**
 * A thing an audit entry is about, with its name when the action happened (details.about). A
 * participant never carries a name here: their login id is looked up when the log is read
 * (audit.service.ts), so an erased participant's login is kept nowhere.
 */
export interface Subject {
  readonly kind: SubjectKind;
  /** The id (a recommender's key). */
  readonly id: string;
  readonly name?: string;
}

type Fields = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A name read from a row, or nothing when the row is gone. */
const named = (kind: SubjectKind, id: string, name: unknown): Subject =>
  typeof name === "string" ? { kind, id, name } : { kind, id };

/**
 * Recommenders' labels by key: a registered one's, or a built-in's (a row only once an admin
 * changed its texts).
 */
export async function recommenderLabels(db: Knex, keys: readonly string[]): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  for (const b of BUILTIN_RECOMMENDERS) if (keys.includes(b.key)) labels.set(b.key, b.label);
  if (keys.length === 0) return labels;
  for (const [key, label] of await storedRecommenderLabels(db, keys)) labels.set(key, label);
  return labels;
}

/** Lookups of what each kind of subject is called now, with the experiment it belongs to. */
function lookups(db: Knex) {
  const withExperiment = async (
    table: string,
    kind: SubjectKind,
    id: string,
    nameColumn: string | Knex.Raw = "name",
  ): Promise<Subject[]> => {
    const row = (await db(`${table} as t`)
      .leftJoin("experiments as e", "e.id", "t.experiment_id")
      .where("t.id", id)
      .first(
        typeof nameColumn === "string" ? `t.${nameColumn} as name` : nameColumn,
        "e.id as experiment_id",
        "e.name as experiment_name",
      )) as { name: unknown; experiment_id: string | null; experiment_name: string | null } | undefined;
    const experiment = row?.experiment_id
      ? [named("experiment", row.experiment_id, row.experiment_name)]
      : [];
    return [...experiment, named(kind, id, kind === "participant" ? undefined : row?.name)];
  };
  const own = async (table: string, kind: SubjectKind, key: string, id: string, nameColumn: string) => {
    const row = (await db(table).where(key, id).first(`${nameColumn} as name`)) as
      | { name: unknown }
      | undefined;
    return [named(kind, id, row?.name)];
  };
  return {
    experiment: (id: string) => own("experiments", "experiment", "id", id, "name"),
    arm: (id: string) => withExperiment("groups", "arm", id),
    // A survey's name may be written per language: the study's default language's.
    survey: (id: string) =>
      withExperiment("surveys", "survey", id, db.raw("feedlab_text_in(t.name, e.default_language) as name")),
    // Never the login: it would outlive the participant's erasure in the log.
    participant: (id: string) => withExperiment("users", "participant", id, "id"),
    layout: (id: string) => own("ui_templates", "layout", "id", id, "name"),
    recommender: async (key: string) => [
      named("recommender", key, (await recommenderLabels(db, [key])).get(key)),
    ],
    video: (id: string) => own("videos", "video", "id", id, "title"),
  };
}

/**
 * What an admin action is about, outermost first and its target last (an arm in its experiment),
 * named as they are at the time of the call: `params` are the route's path parameters, `created`
 * the response body (what a create made). Empty for actions that name nothing (sign-ins, admins,
 * media).
 */
export async function subjectsOf(
  db: Knex,
  action: AuditAction,
  params: Fields,
  created: Fields,
): Promise<Subject[]> {
  const find = lookups(db);
  const id = str(params.id);
  const [kind, verb] = action.split(".") as [string, string | undefined];
  const made = str(created.id);
  switch (kind) {
    case "experiment":
      return id || made ? find.experiment((id ?? made) as string) : [];
    case "arm":
      if (verb === "create")
        return [...(id ? await find.experiment(id) : []), ...(made ? [armOf(created)] : [])];
      return id ? find.arm(id) : [];
    case "survey":
      if (verb === "create")
        return [
          ...(id ? await find.experiment(id) : []),
          ...(made ? [named("survey", made, created.name)] : []),
        ];
      return id ? find.survey(id) : [];
    case "pool":
    case "model":
    case "dry_run":
    case "prolific":
    case "reminders":
      return id ? find.experiment(id) : [];
    case "export":
      if (!id) return [];
      return verb?.startsWith("survey_") ? find.survey(id) : find.experiment(id);
    case "participant": {
      const user = str(params.user_id) ?? str(created.user_id);
      const experiment = verb === "add" && id ? await find.experiment(id) : [];
      if (!user) return experiment;
      const found = await find.participant(user);
      return found.length > 1 ? found : [...experiment, ...found];
    }
    case "recommender": {
      const key = str(params.key) ?? str(created.key);
      return key ? find.recommender(key) : [];
    }
    case "study": {
      const applied = str(created.experiment_id);
      return applied ? find.experiment(applied) : [];
    }
    case "layout":
      return id || made ? find.layout((id ?? made) as string) : [];
    case "video":
      return id ? find.video(id) : [];
    default:
      return [];
  }
}

const armOf = (created: Fields): Subject => named("arm", String(created.id), created.name);
