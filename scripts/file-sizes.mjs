#!/usr/bin/env node
// Part of `npm run lint`: a production file over MAX_LINES lines usually does several jobs, which
// leaves "where does a new X go" without an answer (docs/architecture.md, "Where things go"). Each file
// allowed to be longer is listed below with what it is and why its length is one job; a listed file
// that shrank below the limit must leave the list, so it stays true.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const MAX_LINES = 400;

/** Longer files: what each is, and why it is long without doing several jobs. */
const ALLOWED = {
  "trainer/src/parallel/simd.ts":
    "the WebAssembly SIMD kernels of training and ranking (matvec, accum, dots), encoded opcode by opcode " +
    "because Node has no assembler: the encoder, the three function bodies and the module that binds them " +
    "to one memory layout are one unit, checked together against the plain kernels by simd.test.ts",
  "web/src/lib/admin/dialogs/recommender-dialog.svelte":
    "the dialog that registers or edits a recommender: the ten fields of an external HTTP call, each with " +
    "its hint and its error in place under the field the server names; the checks are recommender-form.ts " +
    "and the test call recommender-test.svelte, so what is left is markup, one field after another",
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
