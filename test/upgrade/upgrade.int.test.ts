import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import { applyMigrations, type Db, openDb } from "@feedlab/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreBackup } from "../../api/src/db/backup.ts";
import { migrate } from "../../api/src/db/db.ts";
import { adoptLegacyMigrations, MIGRATIONS } from "../../api/src/db/migrations/index.ts";
import { SchemaNewerError, VERSION } from "../../api/src/db/release.ts";
import { startTestAppOn, type TestApp } from "../harness/app.ts";
import { createTestDatabase, type TestDatabase } from "../harness/database.ts";
import { differences, type Manifest, tableManifests } from "./manifest.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const RELEASES = path.join(import.meta.dirname, "releases");
/** Every release's fixture, oldest first (docs/upgrades.md). */
const FIXTURES = readdirSync(RELEASES).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));

/**
 * Tables a later release changes on purpose in an older release's rows (a fix to data stored wrongly),
 * each with the release and the reason: they are left out of the comparison. None so far.
 */
const CHANGED_ON_PURPOSE: Readonly<Record<string, string>> = {};
const ON_PURPOSE = new Set(Object.keys(CHANGED_ON_PURPOSE));

const manifestOf = (release: string): Manifest =>
  JSON.parse(readFileSync(path.join(RELEASES, release, "manifest.json"), "utf8"));

/** A copy of the release's data folder (the embedded database), in a new folder of its own. */
async function unpackDataFolder(release: string): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), `feedlab-upgrade-${release}-`));
  await run("tar", ["-xzf", path.join(RELEASES, release, "data.tar.gz"), "-C", dir]);
  return dir;
}

const openFolder = (dir: string) => openDb({ databaseUrl: null, dataDir: dir });

/** The `feedlab` CLI of this checkout on a data folder: its exit code and output, never throwing. */
async function feedlab(dataDir: string, ...args: string[]) {
  try {
    const r = await run(
      path.join(ROOT, "node_modules/.bin/node"),
      [path.join(ROOT, "bin/feedlab.mjs"), ...args],
      {
        env: { ...process.env, DATABASE_URL: "", KAFKA_BROKERS: "", FEEDLAB_DATA_DIR: dataDir, PORT: "0" },
        timeout: 60_000,
      },
    );
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const r = e as { code?: number; stdout?: string; stderr?: string };
    return { code: r.code ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
  }
}

/** The fixture's release recorded by the database, and this one's after a migration. */
async function releasesIn(db: Db): Promise<string[]> {
  return ((await db("feedlab_releases").orderBy("version").select("version")) as { version: string }[]).map(
    (r) => r.version,
  );
}

describe.each(FIXTURES)("an upgrade from release %s", (release) => {
  const manifest = manifestOf(release);

  it("keeps every row of the data folder on PGlite as the release wrote it, after migrating to this release", async () => {
    const dir = await unpackDataFolder(release);
    const { db, close } = openFolder(dir);
    try {
      // The fixture holds what the release wrote: its own manifest, before anything runs on it.
      expect(differences(manifest.tables, await tableManifests(db, manifest.tables))).toEqual([]);
      await migrate(db);
      expect(differences(manifest.tables, await tableManifests(db, manifest.tables), ON_PURPOSE)).toEqual([]);
      expect(await releasesIn(db)).toEqual([...new Set([release, VERSION])].sort());
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("its backup restored on PostgreSQL", () => {
    let database: TestDatabase;
    let app: TestApp;
    beforeAll(async () => {
      database = await createTestDatabase("feedlab_test_upgrade");
      const { db, close } = openDb({ databaseUrl: database.url, dataDir: "" });
      try {
        await restoreBackup(db, () => Readable.from(readFileSync(path.join(RELEASES, release, "backup.gz"))));
      } finally {
        await close();
      }
      app = await startTestAppOn(
        { env: { DATABASE_URL: database.url }, cleanup: () => database.drop() },
        "postgres",
      );
    });
    afterAll(async () => {
      if (app) await app.stop();
      else await database?.drop();
    });

    it("holds every row the release wrote, migrated to this release (participants' keys are never in a backup)", async () => {
      const left = new Set([...ON_PURPOSE, "participant_keys"]);
      expect(
        differences(manifest.tables, await tableManifests(app.runtime.db, manifest.tables), left),
      ).toEqual([]);
      expect(await releasesIn(app.runtime.db)).toContain(VERSION);
    });

    it("serves the old study: its owner signs in, and its events export holds every stored event", async () => {
      const admin = await app.admin();
      const experiments = (await admin.get<{ id: string; name: string }[]>("/api/v1/admin/experiments")).body;
      const study = experiments.find((e) => e.name === "Upgrade study");
      expect(study, JSON.stringify(experiments)).toBeDefined();
      const stored = Number(
        (
          (await app.runtime.db("events").where({ experiment_id: study?.id }).count({ n: "*" })) as {
            n: string;
          }[]
        )[0]?.n,
      );
      expect(stored).toBeGreaterThan(33);
      const exported = await admin.get(`/api/v1/admin/experiments/${study?.id}/events?format=ndjson`);
      expect(exported.status).toBe(200);
      expect(exported.text.trim().split("\n")).toHaveLength(stored);
    });
  });
});

describe("the upgrade test's own check", () => {
  const release = FIXTURES.at(-1) as string;
  const manifest = manifestOf(release);

  it("fails when a migration alters a row an earlier release wrote, naming the table", async () => {
    const dir = await unpackDataFolder(release);
    const { db, close } = openFolder(dir);
    try {
      const broken = {
        name: "999-broken-for-the-test",
        up: async (k: Db) => {
          // A column added with a default changes no old value; the update does.
          await k.raw("alter table experiments add column tagline text default 'new'");
          await k.raw("update experiments set name = name || ' (renamed)' where name = 'Pilot'");
        },
        down: async () => {},
      };
      await applyMigrations(db, [...MIGRATIONS, broken], adoptLegacyMigrations);
      expect(differences(manifest.tables, await tableManifests(db, manifest.tables))).toEqual([
        "experiments: the same 3 rows, but their values changed",
      ]);
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a database a newer release migrated", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await unpackDataFolder(FIXTURES.at(-1) as string);
    const { db, close } = openFolder(dir);
    try {
      await migrate(db);
      await db("knex_migrations").insert({
        name: "900-from-a-later-release",
        batch: 99,
        migration_time: new Date(),
      });
      await db("feedlab_releases").insert({ version: "9.1.0" });
    } finally {
      await close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses to migrate, naming both releases, and changes nothing", async () => {
    const { db, close } = openFolder(dir);
    try {
      const before = await tableManifests(db);
      const migrations = await db("knex_migrations").count({ n: "*" });
      const releases = await releasesIn(db);
      const error = await migrate(db).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaNewerError);
      expect((error as Error).message).toContain("Feedlab 9.1.0");
      expect((error as Error).message).toContain(`this Feedlab ${VERSION}`);
      expect((error as Error).message).toContain("900-from-a-later-release");
      expect(await tableManifests(db)).toEqual(before);
      expect(await db("knex_migrations").count({ n: "*" })).toEqual(migrations);
      expect(await releasesIn(db)).toEqual(releases);
    } finally {
      await close();
    }
  });

  it("makes `feedlab start` exit with that message, and `feedlab migrate --dry-run` say the same", async () => {
    const start = await feedlab(dir, "start");
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(
      `This database was migrated by Feedlab 9.1.0, newer than this Feedlab ${VERSION}`,
    );
    expect(start.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    const dry = await feedlab(dir, "migrate", "--dry-run");
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain("Feedlab 9.1.0");
  });
});

describe("a newer release's backup", () => {
  it("is refused by a restore, naming both releases, and leaves the empty data folder without a table", async () => {
    const release = FIXTURES.at(-1) as string;
    // The fixture's backup as a later release would write it: one migration more, its version in the header.
    const lines = gunzipSync(readFileSync(path.join(RELEASES, release, "backup.gz")))
      .toString("utf8")
      .split("\n");
    const header = JSON.parse((lines[0] ?? "").slice(2)) as { release: string; migrations: string[] };
    lines[0] = `H\t${JSON.stringify({ ...header, release: "9.1.0", migrations: [...header.migrations, "900-from-a-later-release"] })}`;
    const file = gzipSync(lines.join("\n"));
    const dir = mkdtempSync(path.join(tmpdir(), "feedlab-restore-newer-"));
    const { db, close } = openFolder(dir);
    try {
      const error = await restoreBackup(db, () => Readable.from(file)).catch((e: unknown) => e);
      expect((error as Error).message).toContain(`Feedlab 9.1.0, newer than this Feedlab ${VERSION}`);
      expect((error as Error).message).toContain("Nothing was restored");
      expect(await db.schema.hasTable("knex_migrations")).toBe(false);
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("feedlab migrate --dry-run", () => {
  it("lists every migration a start would apply on a new data folder, and creates no table", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "feedlab-dry-run-"));
    try {
      const dry = await feedlab(dir, "migrate", "--dry-run");
      expect(dry.code, dry.stderr).toBe(0);
      const listed = dry.stdout
        .split("\n")
        .filter((l) => l.startsWith("  "))
        .map((l) => l.trim());
      expect(listed).toEqual(MIGRATIONS.map((m) => m.name));
      expect(dry.stdout).toContain(`Feedlab ${VERSION} would apply ${MIGRATIONS.length} migration(s)`);
      const { db, close } = openFolder(dir);
      try {
        expect(await db.schema.hasTable("knex_migrations")).toBe(false);
      } finally {
        await close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says a database this release migrated is up to date", async () => {
    const dir = await unpackDataFolder(FIXTURES.at(-1) as string);
    try {
      const dry = await feedlab(dir, "migrate", "--dry-run");
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain(`is up to date with Feedlab ${VERSION}: a start applies nothing`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
