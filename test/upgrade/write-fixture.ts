// `npm run release:fixture`: writes this release's upgrade fixture (docs/upgrades.md) into
// test/upgrade/releases/<version>/: the embedded database's data folder (data.tar.gz) and a `feedlab
// backup` file (backup.gz) of a study made through the HTTP API (populate.ts), and the manifest of every
// table's rows (manifest.json) the upgrade test compares later releases with. Run once per release, on
// the release's commit; the files are committed and never rewritten.
import { execFileSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeBackup } from "../../api/src/db/backup.ts";
import { VERSION } from "../../api/src/db/release.ts";
import { startTestAppOn } from "../harness/app.ts";
import { startFakeProlific } from "../harness/fake-prolific.ts";
import { startFakeRecommender } from "../harness/recommender-server.ts";
import { startTestSmtp } from "../harness/smtp.ts";
import { type Manifest, tableManifests } from "./manifest.ts";
import { populate } from "./populate.ts";

/**
 * Tables the study leaves empty on the embedded default, and why: a fixture with any other empty table
 * fails to write, so that a release's new table gets its rows in the fixture too.
 */
const EMPTY_BY_DESIGN: Readonly<Record<string, string>> = {
  event_log_keys: "participants' keys of the Kafka log: the embedded log needs none",
  event_log_topics: "the Kafka topics the log created: none on the embedded log",
  dead_letters: "records the projector could not apply: none in a healthy study",
  projector_rebuilds: "read models waiting for a rebuild: emptied at start",
};

const RELEASES = path.join(import.meta.dirname, "releases");

async function main(): Promise<void> {
  const out = path.join(RELEASES, VERSION);
  if (existsSync(out) && !process.argv.includes("--force"))
    throw new Error(`${out} exists: a release's fixture is written once (--force replaces it)`);
  const dataDir = mkdtempSync(path.join(tmpdir(), "feedlab-fixture-"));
  const smtp = await startTestSmtp();
  const prolific = await startFakeProlific();
  const recommender = await startFakeRecommender();
  let app = await startTestAppOn({ env: { FEEDLAB_DATA_DIR: dataDir }, cleanup: async () => {} }, "pglite", {
    env: {
      FEEDLAB_SMTP_URL: smtp.url,
      FEEDLAB_MAIL_FROM: "Study team <study@example.org>",
      FEEDLAB_PROLIFIC_TOKEN: prolific.token,
      FEEDLAB_PROLIFIC_URL: prolific.url,
      FEEDLAB_RECOMMENDER_ALLOW: "127.0.0.1",
      FEEDLAB_MEDIA_DIR: path.join(dataDir, "media"),
    },
  });
  try {
    await populate(app, { smtp, prolific, recommender });
    // A stop writes what the service keeps in memory (the monitoring's minute counts), as a release's would.
    app = await app.restart();
    const tables = await tableManifests(app.runtime.db);
    const empty = Object.entries(tables)
      .filter(([name, t]) => t.rows === 0 && !(name in EMPTY_BY_DESIGN))
      .map(([name]) => name);
    if (empty.length > 0) throw new Error(`the fixture leaves these tables empty: ${empty.join(", ")}`);
    mkdirSync(out, { recursive: true });
    await writeBackup(app.runtime.db, createWriteStream(path.join(out, "backup.gz")), { database: "pglite" });
    const manifest: Manifest = { release: VERSION, tables };
    writeFileSync(path.join(out, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  } finally {
    await app.stop();
    await Promise.all([smtp.close(), prolific.close(), recommender.close()]);
  }
  execFileSync("tar", ["-czf", path.join(out, "data.tar.gz"), "-C", dataDir, "pgdata"]);
  rmSync(dataDir, { recursive: true, force: true });
  process.stdout.write(`Wrote ${out}: data.tar.gz, backup.gz, manifest.json\n`);
}

await main();
