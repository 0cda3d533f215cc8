import { configDefaults, defineConfig } from "vitest/config";

/** Starts (or points at, via DATABASE_URL) PostgreSQL once per run and provides `postgresUrl`. */
const globalSetup = "test/harness/global-setup.ts";

/** web/ runs its own tests with its own (Svelte) tooling. */
const notOurs = [...configDefaults.exclude, "web/**"];

/**
 * One project per test tier (STYLE.md, Tests): `npm run test:unit|int|e2e` picks one with `--project`.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          environment: "node",
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
        },
      },
      {
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/**/*.e2e.test.ts"],
          exclude: notOurs,
          // One Chromium for the run: launchBrowser() connects to it (harness/browser-server.ts).
          globalSetup: [globalSetup, "test/harness/browser-server.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Each file drives a browser (and often the app); two at once overload a 2-core machine.
          fileParallelism: false,
          // The files run one after another in one process that keeps its imported modules: each
          // file starts its own server and contexts, and the harness's modules keep only counters for
          // unique names, set no environment and mock nothing. A fresh process per file imported
          // playwright, the server and the harness again each time (the 39 files' imports took 6 s
          // in all this way on 2026-12-02).
          isolate: false,
        },
      },
    ],
  },
});
