#!/usr/bin/env node
// Renders kustomizations with kubectl (1.27 or later: kustomize v5) and checks every object against
// the Kubernetes API of test/harness/kubernetes.ts's pinned release, offline (docs/kubernetes.md):
//
//   npm run validate:kubernetes                      every kustomization under deploy/kubernetes/
//   npm run validate:kubernetes -- DIR...           these (your own overlay, say)
//
// Prints each kustomization's objects and problems. Exit 0: no problem; 1: a problem or a render that
// failed; 2: no kubectl that can render. test/kubernetes.int.test.ts runs the same checks in CI, and
// the deployment's own promises besides.
import {
  findRenderer,
  KUBERNETES_API_VERSION,
  kustomizations,
  nameOf,
  render,
  schemaProblems,
} from "../test/harness/kubernetes.ts";

const renderer = findRenderer();
if ("missing" in renderer) {
  process.stderr.write(`${renderer.missing}\n`);
  process.exit(2);
}
process.stdout.write(
  `kubectl ${renderer.version} (kustomize ${renderer.kustomize}); objects checked against Kubernetes ${KUBERNETES_API_VERSION}\n`,
);
const dirs = process.argv.length > 2 ? process.argv.slice(2) : kustomizations();
let failed = false;
for (const dir of dirs) {
  let problems: string[];
  let names: string[] = [];
  try {
    const objects = render(renderer.kubectl, dir);
    names = objects.map(nameOf);
    problems = schemaProblems(objects);
  } catch (err) {
    problems = [(err as Error).message];
  }
  failed ||= problems.length > 0;
  process.stdout.write(`\n${dir}: ${names.length} objects, ${problems.length} problem(s)\n`);
  for (const name of names) process.stdout.write(`  ${name}\n`);
  for (const problem of problems) process.stdout.write(`  problem: ${problem}\n`);
}
process.exit(failed ? 1 : 0);
