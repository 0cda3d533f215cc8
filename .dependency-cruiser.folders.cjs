// Circles between folders inside api/src, checked by `npm run lint` as a pass of its own (docs/architecture.md,
// "What the lint holds to"): a folder of api (a feature, or a part of one) may import another only if that one
// does not import it back, directly or through others. `.dependency-cruiser.cjs` checks modules; this pass
// checks folders, where two modules each free of circles can still tie their folders together.
const base = require("./.dependency-cruiser.cjs");

/**
 * Tests and their fixtures are left out of this pass: a test's set-up reaches across the layers (an
 * integration test of db/ starts the whole app through test/harness/), which ties every folder to app/.
 * The module pass still holds them to no import circles.
 */
const TESTS = "\\.test\\.tsx?$|\\.fixture\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-folder-circles-in-api",
      severity: "error",
      comment:
        "Two folders of api/src import each other, directly or through others: move what both need below them, or pass it in from the composition root (api/src/app/).",
      scope: "folder",
      from: { path: "^api/src/" },
      to: { circular: true },
    },
  ],
  options: {
    ...base.options,
    exclude: { path: `${base.options.exclude.path}|${TESTS}` },
  },
};
