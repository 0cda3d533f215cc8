import { readFileSync } from "node:fs";
import path from "node:path";
import type { Db } from "@feedlab/sql";
import { appliedNames, MIGRATIONS } from "./migrations/index.ts";

/** This release's version (semantic versioning: CHANGELOG.md), from the root package.json. */
export const VERSION: string = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, "../../../package.json"), "utf8"),
).version;

/**
 * A database whose schema a newer release changed: it holds migrations this release does not know.
 * Nothing was changed when this is thrown.
 */
export class SchemaNewerError extends Error {
  readonly unknown: readonly string[];
  readonly newest: string | null;
  constructor(unknown: readonly string[], newest: string | null) {
    const by = newest ? `Feedlab ${newest}` : "a later Feedlab release";
    super(
      `This database was migrated by ${by}, newer than this Feedlab ${VERSION}: its schema has ` +
        `migrations this release does not know (${unknown.join(", ")}). Nothing was changed. Run ` +
        `${newest ? `Feedlab ${newest}` : "that release"} or later, or restore a backup this release ` +
        "wrote into a new data folder or an empty database (docs/upgrades.md).",
    );
    this.name = "SchemaNewerError";
    this.unknown = unknown;
    this.newest = newest;
  }
}

/** What a start would do to a database's schema: nothing is written to find out. */
export interface SchemaState {
  /** This release's migrations the database has not applied, in the order a start applies them. */
  readonly pending: readonly string[];
  /** Migrations the database applied that this release does not know (a newer release's). */
  readonly unknown: readonly string[];
  /** The newest release that migrated it (none before 0.2.0, which began to record them). */
  readonly newest: string | null;
}

/** Compares two semantic versions by their numbers (major, minor, patch). */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.+-]/, 3).map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** Reads the database's migrations and releases, and compares them with this release's. */
async function schemaState(db: Db): Promise<SchemaState> {
  const hasTable = (name: string) => db.schema.hasTable(name);
  const recorded = (await hasTable("knex_migrations"))
    ? ((await db("knex_migrations").orderBy("id").select("name")) as { name: string }[]).map((r) => r.name)
    : [];
  const applied = appliedNames(recorded);
  const known = new Set(MIGRATIONS.map((m) => m.name));
  const releases = (await hasTable("feedlab_releases"))
    ? ((await db("feedlab_releases").select("version")) as { version: string }[]).map((r) => r.version)
    : [];
  return {
    pending: MIGRATIONS.map((m) => m.name).filter((name) => !applied.has(name)),
    unknown: [...applied].filter((name) => !known.has(name)),
    newest: releases.sort(compareVersions).at(-1) ?? null,
  };
}

/**
 * The database's schema state (`schemaState`); throws SchemaNewerError, changing nothing, when a newer
 * release has migrated the database.
 */
export async function refuseNewerSchema(db: Db): Promise<SchemaState> {
  const state = await schemaState(db);
  if (state.unknown.length > 0) throw new SchemaNewerError(state.unknown, state.newest);
  return state;
}

/** Records that this release has migrated the database (once per release). */
export async function recordRelease(db: Db): Promise<void> {
  await db("feedlab_releases").insert({ version: VERSION }).onConflict("version").ignore();
}
