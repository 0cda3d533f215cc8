// The layering of the workspaces, checked by `npm run lint` (docs/architecture.md, "Where things go"):
// sql, schemas <- ingest <- projector <- trainer <- api, the web app apart; no import circles; and api's
// composition root (api/src/app/) is imported by nobody but the CLI and the tests. Circles between api's
// folders are checked by a second pass, .dependency-cruiser.folders.cjs.
/** Tests may reach across the layers for their set-up (a projector test builds its events with the test harness). */
const TESTS = "\\.test\\.tsx?$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle: one of the modules should not need the other.",
      from: {},
      to: { circular: true },
    },
    {
      name: "sql-is-the-bottom",
      comment: "sql holds how every workspace reaches the database; it imports none of them.",
      severity: "error",
      from: { path: "^sql/", pathNot: TESTS },
      to: { path: "^(schemas|ingest|projector|trainer|api|web)/" },
    },
    {
      name: "schemas-is-the-bottom",
      severity: "error",
      comment: "schemas holds the contracts every workspace shares; it imports none of them.",
      from: { path: "^schemas/", pathNot: TESTS },
      to: { path: "^(sql|ingest|projector|trainer|api|web)/" },
    },
    {
      name: "ingest-below-projector",
      severity: "error",
      comment: "ingest (the event log) is read by the projector, never the other way round.",
      from: { path: "^ingest/", pathNot: TESTS },
      to: { path: "^(projector|trainer|api|web)/" },
    },
    {
      name: "projector-below-api",
      severity: "error",
      comment: "The projector and its read models know nothing of the HTTP API, the trainer or the web app.",
      from: { path: "^projector/", pathNot: TESTS },
      to: { path: "^(trainer|api|web)/" },
    },
    {
      name: "trainer-below-api",
      severity: "error",
      comment: "The trainer reads the read models; the API starts it, not the other way round.",
      from: { path: "^trainer/", pathNot: TESTS },
      to: { path: "^(api|web)/" },
    },
    {
      name: "features-never-import-the-composition-root",
      severity: "error",
      comment: "api/src/app/ composes the features; a feature that imports it closes a circle through it.",
      from: { path: "^api/src/", pathNot: `^api/src/(app|cli)/|${TESTS}` },
      to: { path: "^api/src/app/" },
    },
    {
      name: "api-root-files-are-not-imported-back",
      severity: "error",
      comment:
        "api/src's own files (config.ts, deps.ts, logger.ts) stand in no folder of their own, so the folder pass (.dependency-cruiser.folders.cjs) cannot see a circle through them: the folders they import (config's parsers in http/ and recommenders/external-http/, deps' Db in db/) import none of them.",
      from: { path: "^api/src/(http|recommenders/external-http|db)/", pathNot: TESTS },
      to: { path: "^api/src/(config|deps|logger)\\.ts$" },
    },
    {
      name: "migrations-are-frozen",
      severity: "error",
      comment:
        "A migration does what it did when it was written: it imports no live code of any workspace (copy what it computes into it), only knex, Node and older migrations. index.ts lists them.",
      from: {
        path: "^api/src/db/migrations/[^/]+\\.ts$",
        pathNot: `^api/src/db/migrations/index\\.ts$|${TESTS}`,
      },
      to: { pathNot: "^api/src/db/migrations/", dependencyTypesNot: ["core"] },
    },
    {
      name: "api-db-below-the-features",
      severity: "error",
      comment:
        "api/src/db (the database's upkeep, migrations, presenting rows) is below every feature of api: it imports none of them, so no feature's folder and it make a circle.",
      from: { path: "^api/src/db/", pathNot: TESTS },
      to: { path: "^api/src/", pathNot: "^api/src/db/" },
    },
    {
      name: "web-imports-no-server-code",
      severity: "error",
      comment: "The browser app talks to the server over HTTP only (types come from schemas).",
      from: { path: "^web/", pathNot: TESTS },
      to: { path: "^(sql|ingest|projector|trainer|api)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules|/build/|\\.svelte-kit/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    combinedDependencies: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "default"] },
  },
};
