#!/usr/bin/env node
// Part of `npm run lint`: a production file over MAX_LINES lines usually does several jobs, which
// leaves "where does a new X go" without an answer (docs/architecture.md, "Where things go"). Each file
// allowed to be longer is listed below with the reason; a listed file that shrank below the limit must
// leave the list, so it stays true.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const MAX_LINES = 400;

/** Longer files, each with why it may be (one job), or what is still to be split. */
const ALLOWED = {
  "trainer/src/parallel/simd.ts": "one job: the ALS kernels on typed arrays, unrolled by hand for speed",
  "web/src/lib/admin/dialogs/recommender-dialog.svelte": "one job: the form of an external recommender",
};

const PRODUCTION = /\.(ts|tsx|svelte|mjs|cjs)$/;
const NOT_PRODUCTION = /(\.test\.tsx?$|\.fixture\.ts$|^test\/|\/bench\/|\.d\.ts$)/;

const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  encoding: "utf8",
})
  .split("\n")
  .filter((f) => PRODUCTION.test(f) && !NOT_PRODUCTION.test(f));

const problems = [];
for (const file of files) {
  let lines;
  try {
    lines = readFileSync(file, "utf8").split("\n").length - 1;
  } catch {
    continue; // deleted in the working tree
  }
  const allowed = Object.hasOwn(ALLOWED, file);
  if (lines > MAX_LINES && !allowed)
    problems.push(
      `${file}: ${lines} lines, over ${MAX_LINES}: split it by job, or list it in scripts/file-sizes.mjs with why it is one job`,
    );
  if (lines <= MAX_LINES && allowed)
    problems.push(
      `${file}: ${lines} lines, no longer over ${MAX_LINES}: take it off the list in scripts/file-sizes.mjs`,
    );
}
for (const file of Object.keys(ALLOWED))
  if (!files.includes(file)) problems.push(`${file}: listed in scripts/file-sizes.mjs but not in the tree`);

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(
  `file sizes: ${files.length} production files, none over ${MAX_LINES} lines but the ${Object.keys(ALLOWED).length} listed`,
);
