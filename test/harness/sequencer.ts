import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The integration tier's files that take minutes, longest first (the browser tier's two lanes run one
 * file at a time each, so their order does not change their length). With two files at once, a tier
 * ends no sooner than its longest file; started last, one adds its whole length to the tier. Vitest
 * starts first the files it remembers as slowest, but a fresh clone (CI) has no such memory and starts
 * the largest files first: on 2026-12-02 the two planted-taste files (3 lines each, 1.6 and 2.2
 * minutes) and the benchmarks' smoke run (2.5 minutes) started last. Times are those of that day's
 * runs on 2 cores; since 2026-12-03 the planted tastes are compared on PGlite only (12 s on PostgreSQL).
 */
const LONGEST_FILES = [
  "api/src/simulation/dry-runs/planted-taste.pglite.int.test.ts",
  "test/bench/smoke.int.test.ts",
];

const rank = (spec: TestSpecification) => {
  const found = LONGEST_FILES.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return found < 0 ? LONGEST_FILES.length : found;
};

/**
 * Vitest's order (projects one after another; in each, its memory of durations, else the largest
 * first), with a project's LONGEST_FILES first.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const project = new Map(sorted.map((spec, i) => [spec.project.name, i]));
    const place = (spec: TestSpecification) => project.get(spec.project.name) ?? 0;
    const position = new Map(sorted.map((spec, i) => [spec, i]));
    return sorted.sort(
      (a, b) => place(a) - place(b) || rank(a) - rank(b) || (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
}
