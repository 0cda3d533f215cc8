import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/harness/sequencer.ts";

/** Starts (or points at, via DATABASE_URL) PostgreSQL once per run and provides `postgresUrl`. */
const globalSetup = "test/harness/global-setup.ts";

/**
 * Node flags of the int and e2e workers, which open hundreds of embedded databases (PGlite, WebAssembly):
 * V8 13.6 (Node 24.21) can free a wasm-to-JS import wrapper twice when one tiers up while wasm code GC
 * has marked it dying, and aborts the whole worker ("Check failed: jit_page_->allocations_.erase(addr)
 * == 1"; nodejs/node#66366, fixed upstream in V8 by "[wasm] Fix lookup of wrappers marked is_dying",
 * not yet in a 24.x release). It killed a worker in three runs of a tier on 2026-12-02, a different
 * file each time. Without wasm code GC no wrapper is marked dying; what stays is code the engine no
 * longer runs (replaced by optimised code, dead wrappers) of one module compiled once per process
 * (sql/src/pglite-proxy.ts). The server runs with the same flag (bin/node-settings.mjs). Node refuses
 * it in NODE_OPTIONS, hence here.
 */
const execArgv = ["--no-wasm-code-gc"];

/**
 * Node's compile cache for the workers (bin/node-settings.mjs's folder): the packages they import
 * natively (knex, pg, koa, ajv, kafkajs...) are compiled once, not once per test file.
 */
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL(".cache/node-compile-cache", import.meta.url));

/**
 * The browser tier's second lane ("e2e-beside"), which `npm test` runs beside the browser files: the
 * files that drive processes (the CLI, killed servers, a broker outage) and no browser, which spend
 * half their time waiting on processes, and console files that time nothing. With the browser files
 * one after the other, the tier's last third left more than half of the 2 cores idle (2026-12-02: the
 * browser lane 21 minutes, this one 10 with the process files alone).
 */
const BESIDE_E2E_FILES = [
  "test/faults/faults.e2e.test.ts",
  "test/cli.e2e.test.ts",
  "test/backup.e2e.test.ts",
  "test/simulate.e2e.test.ts",
  "test/study-cli.e2e.test.ts",
  "test/learned-model.multiprocess.e2e.test.ts",
  "test/recommenders.multiprocess.e2e.test.ts",
  "test/results.e2e.test.ts",
  "test/uploads.e2e.test.ts",
  "test/caddy.e2e.test.ts",
  "test/study-files.e2e.test.ts",
  "test/console-pages.e2e.test.ts",
  "test/languages.e2e.test.ts",
  "test/admins.e2e.test.ts",
  "test/audit-names.e2e.test.ts",
  "test/erasure.e2e.test.ts",
  "test/walkthrough.e2e.test.ts",
  "test/recommenders.e2e.test.ts",
  "test/dry-run-console.e2e.test.ts",
  "test/quality.e2e.test.ts",
  "test/surveys.e2e.test.ts",
  "test/teams.e2e.test.ts",
  "test/assignment.e2e.test.ts",
  // Two minutes, half of them waiting for a schedule's windows.
  "test/longitudinal.e2e.test.ts",
  // A console file that times nothing (26 s): the lanes were 1,136 and 1,138 s on 2026-12-03, and the
  // schedule's file above then lost about 45 s of waiting.
  "test/prolific.e2e.test.ts",
  // (experiment-page.e2e, 54 s, runs in the browser lane since the fault file runs with both Kafka
  // clients: 16:02 and 17:51 before, both about 17 minutes after.)
];

/**
 * How both lanes of the browser tier run: one file at a time, in one process that keeps its imported
 * modules. One file at a time in a lane: two browser files of any kind at once (2026-12-02, in the whole
 * chromium) overloaded the 2 cores (average load 13; files took 1.5-3.4 times as long, and two timed
 * tests failed: participant-journey's flush timing, new-researcher's 120 s); the files that time
 * something stay in the first lane. One process: each file starts its own server and contexts, and the
 * harness's modules keep only counters for unique names, set no environment and mock nothing; a fresh
 * process per file imported playwright, the server and the harness again each time (the 39 files'
 * imports took 6 s in all this way on 2026-12-02).
 */
const e2eLane = {
  environment: "node",
  testTimeout: 120_000,
  hookTimeout: 120_000,
  execArgv,
  fileParallelism: false,
  isolate: false,
} as const;

/** web/ runs its own tests with its own (Svelte) tooling. */
const notOurs = [...configDefaults.exclude, "web/**"];

/**
 * One project per test tier (STYLE.md, Tests): `npm run test:unit|int|e2e` picks one with `--project`.
 */
export default defineConfig({
  test: {
    // The files that take minutes start first, on a fresh clone too (test/harness/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: "unit",
          environment: "node",
          // They run beside the lint and the type check (scripts/test-suite.mjs), which slow the slowest
          // (a password hash, a layout's compile: 2 s there) toward vitest's 5 s.
          testTimeout: 15_000,
          include: ["**/*.test.ts"],
          exclude: [...notOurs, "**/*.int.test.ts", "**/*.e2e.test.ts"],
        },
      },
      {
        test: {
          name: "int",
          environment: "node",
          include: ["**/*.int.test.ts"],
          exclude: notOurs,
          globalSetup,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          execArgv,
          // Both cores: one file at a time left one idle (21:36 against 15:07 for the tier on 2026-12-02).
          maxWorkers: 2,
          // Each worker keeps its imported modules from file to file, as the browser tier's do: the api,
          // knex and the embedded database's compiled engine are loaded (and the engine's code optimised)
          // once per worker instead of once per file. Twelve files took 103 CPU-seconds this way against
          // 159 with a process per file (2026-12-02). What files share this way: the environment (a file
          // that sets a variable others read puts it back: media.int's S3 keys) and module-level caches,
          // which hold nothing of one app (each file starts its own).
          isolate: false,
        },
      },
      {
        test: {
          ...e2eLane,
          name: "e2e",
          include: ["test/**/*.e2e.test.ts"],
          exclude: [...notOurs, ...BESIDE_E2E_FILES],
          // One Chromium for the lane: launchBrowser() connects to it (harness/browser-server.ts).
          globalSetup: [globalSetup, "test/harness/browser-server.ts"],
          // No Kafka broker: the lane has no file on Kafka (they run in the second lane), and a broker would
          // idle for its 19 minutes and start beside the second lane's. The global setup starts none.
          provide: { kafkaBrokers: "" },
        },
      },
      {
        // Beside the browser files, not after them (scripts/test-suite.mjs).
        test: {
          ...e2eLane,
          name: "e2e-beside",
          include: BESIDE_E2E_FILES,
          exclude: notOurs,
          globalSetup: [globalSetup, "test/harness/browser-server.ts"],
        },
      },
    ],
  },
});
