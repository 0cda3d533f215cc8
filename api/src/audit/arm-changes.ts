import type { Knex } from "knex";
import { armRow } from "../groups/queries/groups.queries.ts";
import { templateNames } from "../ui/queries/templates.queries.ts";
import { recommenderLabels } from "./audit.subjects.ts";

/** An arm's settings as the audit log compares them (a row of `groups`). */
export interface ArmState {
  readonly name: string;
  readonly weight: number | string;
  readonly algorithm_feed: string;
  readonly algorithm_watch: string;
  readonly ui_feed: string;
  readonly ui_watch: string;
  readonly recommender_params: unknown;
}

/** One changed field of an arm, its values in words: names, never ids (details.changes). */
export interface FieldChange {
  /** The field as the API names it: `name`, `weight`, `algorithm_config.feed`, `ui_config.watch`, ... */
  readonly field: string;
  readonly from: string;
  readonly to: string;
}

/** The arm's settings now, or null when it is gone. */
export async function armState(db: Knex, id: string): Promise<ArmState | null> {
  const row = await armRow<ArmState>(
    db,
    id,
    "name",
    "weight",
    "algorithm_feed",
    "algorithm_watch",
    "ui_feed",
    "ui_watch",
    "recommender_params",
  );
  return row ?? null;
}

/** JSON with object keys sorted, so equal parameters compare equal whatever their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** A JSON column as the driver gives it: parsed already, or text (PGlite). */
const parsed = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

/** Recommender parameters in words: `recency: half_life = 3` per recommender, or "none". */
function paramsText(value: unknown): string {
  const byKey = Object.entries((parsed(value) ?? {}) as Record<string, Record<string, unknown>>).filter(
    ([, params]) => params && Object.keys(params).length > 0,
  );
  if (byKey.length === 0) return "none";
  return byKey
    .map(
      ([key, params]) =>
        `${key}: ${Object.entries(params)
          .map(([p, v]) => `${p} = ${typeof v === "string" ? v : canonical(v)}`)
          .join(", ")}`,
    )
    .join("; ");
}

/**
 * The fields of an arm that an update changed, and only those, with the values before and after in
 * words: a recommender by its label, a layout by its name (a preset by its key).
 */
export async function armChanges(db: Knex, before: ArmState, after: ArmState): Promise<FieldChange[]> {
  const changed: {
    field: string;
    from: unknown;
    to: unknown;
    words: "text" | "recommender" | "layout" | "params";
  }[] = [];
  const compare = (field: string, from: unknown, to: unknown, words: (typeof changed)[number]["words"]) => {
    const value = (v: unknown) => canonical(words === "params" ? parsed(v) : v);
    if (value(from) !== value(to)) changed.push({ field, from, to, words });
  };
  compare("name", before.name, after.name, "text");
  compare("weight", Number(before.weight), Number(after.weight), "text");
  compare("algorithm_config.feed", before.algorithm_feed, after.algorithm_feed, "recommender");
  compare("algorithm_config.watch", before.algorithm_watch, after.algorithm_watch, "recommender");
  compare("ui_config.feed", before.ui_feed, after.ui_feed, "layout");
  compare("ui_config.watch", before.ui_watch, after.ui_watch, "layout");
  compare("recommender_params", before.recommender_params, after.recommender_params, "params");
  if (changed.length === 0) return [];

  const keysOf = (kind: "recommender" | "layout") =>
    changed.filter((c) => c.words === kind).flatMap((c) => [String(c.from), String(c.to)]);
  const [labels, layouts] = await Promise.all([
    recommenderLabels(db, keysOf("recommender")),
    keysOf("layout").some(isUuid)
      ? templateNames(db, keysOf("layout").filter(isUuid))
      : new Map<string, string>(),
  ]);
  const names = layouts;
  const inWords = (value: unknown, words: (typeof changed)[number]["words"]): string => {
    if (words === "params") return paramsText(value);
    const text = String(value);
    if (words === "recommender") return labels.get(text) ?? text;
    if (words === "layout") return names.get(text) ?? text;
    return text;
  };
  return changed.map((c) => ({ field: c.field, from: inWords(c.from, c.words), to: inWords(c.to, c.words) }));
}

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
