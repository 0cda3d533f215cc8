import { randomBytes } from "node:crypto";
import type pg from "pg";
import { inject } from "vitest";
import { withServer } from "./templates.ts";

/** A database of its own for one test file, on the server the global setup provides. */
export interface TestDatabase {
  /** `<prefix>_<12 hex digits>`; always contains `test`. */
  readonly name: string;
  /** Connection URL of this database, same server and credentials as the admin URL. */
  readonly url: string;
  /** Drops the database, closing any connection a test left open. Idempotent. */
  drop(): Promise<void>;
}

/** PostgreSQL truncates identifiers to 63 bytes; a truncated name would not be the one we drop. */
const MAX_IDENTIFIER_LENGTH = 63;

/**
 * Refuses a database name that does not contain `test`, so a destructive helper pointed at a real
 * database by mistake (a stray DATABASE_URL, a copied name) fails instead of wiping it
 * (PostHog's tests/helpers/database-guard.ts). Also refuses names that would need quoting.
 */
function assertTestDatabaseName(name: string): void {
  if (!name.includes("test")) {
    throw new Error(`refusing to touch database "${name}": its name does not contain "test"`);
  }
  if (!/^[a-z_][a-z0-9_]*$/.test(name) || name.length > MAX_IDENTIFIER_LENGTH) {
    throw new Error(
      `"${name}" is not a plain lower-case identifier of at most ${MAX_IDENTIFIER_LENGTH} characters`,
    );
  }
}

/** The URL of database `name` on the server of `serverUrl`, keeping its credentials and options. */
function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
}

function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withServer(inject("postgresUrl"), work);
}

/**
 * Drops a database on the provided server after the `test` guard.
 * `WITH (FORCE)` (PostgreSQL 13+) ends sessions a test forgot to close instead of failing.
 */
export async function dropTestDatabase(name: string): Promise<void> {
  assertTestDatabaseName(name);
  await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/**
 * Creates a database `<prefix>_<random>` on the server from `inject("postgresUrl")`: empty, or
 * `migrated` (a copy of the run's migrated template, as an app leaves it at its first start).
 * Call it once per test file (in `beforeAll`) and `drop()` it in `afterAll`, so files running in
 * parallel never see each other's rows.
 */
export async function createTestDatabase(
  prefix = "feedlab_test",
  options: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  assertTestDatabaseName(name);
  const template = options.migrated ? ` TEMPLATE "${inject("postgresTemplate")}"` : "";
  await withAdmin((admin) => admin.query(`CREATE DATABASE "${name}"${template}`));
  return {
    name,
    url: databaseUrl(inject("postgresUrl"), name),
    drop: () => dropTestDatabase(name),
  };
}
