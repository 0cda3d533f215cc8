import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { armSeed, hajekMean, type IpwEstimate, ipwEstimate } from "../results/ipw.ts";
import { analysisScript } from "./analysis-script.ts";

const run = promisify(execFile);
/** Debian's interpreter, whose python3-pandas `.ci/run` installs (not a user's pyenv). */
const PYTHON = "/usr/bin/python3";

const ARMS = [
  { id: "00000000-0000-4000-8000-00000000000a", name: "Ranked" },
  { id: "00000000-0000-4000-8000-00000000000b", name: "Random" },
] as const;

/** A participant of the hand-made package: arm (index), method, probability, impressions, clicks, finished. */
interface Person {
  readonly arm: 0 | 1;
  readonly method: string;
  readonly p: number | null;
  readonly impressions: number;
  readonly clicks: number;
  readonly finished: boolean;
  readonly excluded?: boolean;
}

/**
 * Thompson sampling's trace: in Ranked, the two who joined while it was unlikely (p 0.2) clicked
 * little, the three who joined once it led (p 0.9) clicked a lot; Random the mirror image. Plain
 * means over-weight the leaders' participants; 1/p weighting changes the answer (and the order of
 * the arms' finishing shares). Also: a participant without impressions (in finished only), a
 * researcher's registration (manual, no probability: weight 1), and an excluded participant.
 */
const ADAPTIVE: readonly Person[] = [
  { arm: 0, method: "adaptive", p: 0.5, impressions: 10, clicks: 3, finished: true },
  { arm: 1, method: "adaptive", p: 0.5, impressions: 10, clicks: 3, finished: false },
  { arm: 0, method: "adaptive", p: 0.2, impressions: 10, clicks: 1, finished: false },
  { arm: 0, method: "adaptive", p: 0.2, impressions: 5, clicks: 0, finished: false },
  { arm: 0, method: "adaptive", p: 0.9, impressions: 10, clicks: 6, finished: true },
  { arm: 1, method: "adaptive", p: 0.1, impressions: 10, clicks: 5, finished: true },
  { arm: 0, method: "adaptive", p: 0.9, impressions: 8, clicks: 4, finished: true },
  { arm: 0, method: "adaptive", p: 0.9, impressions: 0, clicks: 0, finished: true },
  { arm: 1, method: "adaptive", p: 0.8, impressions: 10, clicks: 2, finished: false },
  { arm: 1, method: "manual", p: null, impressions: 4, clicks: 1, finished: true },
  { arm: 1, method: "adaptive", p: 0.8, impressions: 6, clicks: 1, finished: false },
  { arm: 0, method: "adaptive", p: 0.05, impressions: 10, clicks: 10, finished: true, excluded: true },
];

const userId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

/** The package's tables as CSV (the columns analysis.py reads) and study.yaml, in a folder of their own. */
async function writePackage(dir: string, people: readonly Person[], studyYaml: string): Promise<string> {
  const csv = (rows: readonly (readonly (string | number)[])[]) =>
    `${rows.map((r) => r.join(",")).join("\r\n")}\r\n`;
  const events: (string | number)[][] = [];
  for (const [i, p] of people.entries()) {
    const cells = (type: string) => [userId(i), ARMS[p.arm].id, type, "recency", "recency", ""];
    for (let k = 0; k < p.impressions; k++) events.push(cells("IMPRESSION"));
    for (let k = 0; k < p.clicks; k++) events.push(cells("FEED_CLICK"));
  }
  await writeFile(
    path.join(dir, "arms.csv"),
    csv([["group_id", "name"], ...ARMS.map((a) => [a.id, a.name])]),
  );
  await writeFile(
    path.join(dir, "participants.csv"),
    csv([
      [
        "user_id",
        "group_id",
        "group_name",
        "assignment_method",
        "assignment_probability",
        "status",
        "simulated",
        "excluded",
      ],
      ...people.map((p, i) => [
        userId(i),
        ARMS[p.arm].id,
        ARMS[p.arm].name,
        p.method,
        p.p ?? "",
        p.finished ? "finished" : "started",
        "false",
        p.excluded ? "true" : "false",
      ]),
    ]),
  );
  await writeFile(
    path.join(dir, "events.csv"),
    csv([["user_id", "group_id", "event_type", "algorithm_feed", "algorithm_watch", "payload"], ...events]),
  );
  await writeFile(path.join(dir, "study.yaml"), studyYaml);
  await writeFile(path.join(dir, "analysis.py"), analysisScript());
  return path.join(dir, "analysis.py");
}

/** A participant's own rates, as analysis.py's `weighted` and `unweighted` hold them. */
type OwnRates = Record<"ctr" | "completion_rate" | "like_rate" | "finished", IpwEstimate>;

interface Figures {
  groups: (Record<string, unknown> & {
    name: string;
    ctr: IpwEstimate;
    weighted?: OwnRates;
    unweighted?: OwnRates;
    ipw?: IpwEstimate;
  })[];
}

async function figures(script: string, ...args: string[]): Promise<Figures> {
  const { stdout } = await run(PYTHON, [script, "--json", ...args], {
    env: { ...process.env, FEEDLAB_CSV: "1" },
  });
  return JSON.parse(stdout) as Figures;
}

/** The analysed participants of an arm with a value of `metric` (ctr or finished), as /stats counts them. */
function ownValues(people: readonly Person[], arm: number, metric: "ctr" | "finished") {
  const kept = people.filter(
    (p) => p.arm === arm && !p.excluded && (metric === "finished" || p.impressions > 0),
  );
  return {
    values: kept.map((p) => (metric === "finished" ? (p.finished ? 1 : 0) : p.clicks / p.impressions)),
    probabilities: kept.map((p) => p.p ?? 1),
  };
}

const STUDY = (assignment: string) =>
  `# yaml-language-server: $schema=https://example.org/study.schema.json\nfeedlab_study: 1\nname: Weighting\n${assignment}arms:\n  - name: Ranked\n    weight: 1\n  - name: Random\n    weight: 1\n`;

/**
 * The generated analysis.py's weighted figures (docs/assignment.md, "Analysing each method"). Each test
 * runs Python with pandas (about 1-4 s alone); beside the lint and the type check (scripts/test-suite.mjs)
 * one took over vitest's 5 s, hence a timeout of a process's, not a unit's.
 */
describe("analysis.py's weighting by assignment probability", { timeout: 60_000 }, () => {
  let work: string;
  let count = 0;
  const folder = async () => {
    const dir = path.join(work, `package-${count++}`);
    await mkdir(dir);
    return dir;
  };
  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), "feedlab-analysis-script-"));
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("gives each arm's Hajek mean of its participants' own ctr, weighted by 1/probability, beside the unweighted one, as /stats' ipw", async () => {
    const script = await writePackage(
      await folder(),
      ADAPTIVE,
      STUDY("assignment:\n  method: adaptive\n  counts: joined\n  metric: ctr\n  burn_in: 2\n  seed: 42\n"),
    );
    const got = await figures(script);
    for (const [i, g] of got.groups.entries()) {
      const { values, probabilities } = ownValues(ADAPTIVE, i, "ctr");
      const want = ipwEstimate(values, probabilities, armSeed(42, i));
      // The same estimator as /stats' (ipw.ts): the value, and the interval from the same seeded resamples.
      for (const k of ["value", "low", "high"] as const) {
        expect(g.weighted?.ctr?.[k], `${g.name} ${k}`).toBeCloseTo(want[k] as number, 12);
        expect(g.ipw?.[k], `${g.name} ipw ${k}`).toBe(g.weighted?.ctr?.[k]);
      }
      const plain = ipwEstimate(
        values,
        values.map(() => 1),
        armSeed(42, i),
      );
      for (const k of ["value", "low", "high"] as const)
        expect(g.unweighted?.ctr?.[k]).toBeCloseTo(plain[k] as number, 12);
    }
    const [ranked, random] = got.groups;
    // By hand: Ranked's own ctrs 0.3 (p 0.5), 0.1 and 0 (p 0.2), 0.6 and 0.5 (p 0.9); the excluded
    // participant and the one without impressions have none.
    const rankedWeighted = (0.3 / 0.5 + 0.1 / 0.2 + 0 / 0.2 + 0.6 / 0.9 + 0.5 / 0.9) / (2 + 5 + 5 + 2 / 0.9);
    expect(ranked?.weighted?.ctr.value).toBeCloseTo(rankedWeighted, 12);
    expect(ranked?.unweighted?.ctr.value).toBeCloseTo((0.3 + 0.1 + 0 + 0.6 + 0.5) / 5, 12);
    // Random: 0.3 (p 0.5), 0.5 (p 0.1), 0.2 (p 0.8), 0.25 (manual: weight 1), 1/6 (p 0.8).
    const randomWeighted =
      (0.3 / 0.5 + 0.5 / 0.1 + 0.2 / 0.8 + 0.25 + 1 / 6 / 0.8) / (2 + 10 + 1.25 + 1 + 1.25);
    expect(random?.weighted?.ctr.value).toBeCloseTo(randomWeighted, 12);
    // Weighting changes the answer: unweighted Ranked leads, weighted Random does.
    expect(ranked?.unweighted?.ctr.value as number).toBeGreaterThan(random?.unweighted?.ctr.value as number);
    expect(ranked?.weighted?.ctr.value as number).toBeLessThan(random?.weighted?.ctr.value as number);
    // The plain ratio of sums (stats.json's ctr) is still there, unchanged: Ranked 14 / 43.
    expect(ranked?.ctr.value).toBeCloseTo(14 / 43, 12);
    // No plays: completion_rate and like_rate have no participant.
    expect(ranked?.weighted?.like_rate).toEqual({ value: null, low: null, high: null });
    for (const g of got.groups)
      for (const r of [g.weighted?.ctr, g.weighted?.finished] as IpwEstimate[]) {
        expect(r.low as number).toBeLessThanOrEqual(r.value as number);
        expect(r.high as number).toBeGreaterThanOrEqual(r.value as number);
      }
    const report = (await run(PYTHON, [script], { env: { ...process.env, FEEDLAB_CSV: "1" } })).stdout;
    expect(report).toContain(`weighted: ctr ${Number(ranked?.weighted?.ctr.value).toFixed(4)} [`);
    expect(report).toContain("Adaptive assignment: compare the arms on the weighted figures (ipw: ctr)");
  });

  it("reports as ipw the finished share for the completion_rate metric, seeded 0 without a seed", async () => {
    const script = await writePackage(
      await folder(),
      ADAPTIVE,
      STUDY("assignment:\n  method: adaptive\n  counts: joined\n  metric: completion_rate\n"),
    );
    const got = await figures(script);
    for (const [i, g] of got.groups.entries()) {
      const { values, probabilities } = ownValues(ADAPTIVE, i, "finished");
      const want = ipwEstimate(values, probabilities, armSeed(0, i));
      expect(g.ipw).toEqual(g.weighted?.finished);
      for (const k of ["value", "low", "high"] as const)
        expect(g.ipw?.[k], `${g.name} ${k}`).toBeCloseTo(want[k] as number, 12);
    }
    // Ranked: 4 of 6 finished unweighted; weighted, the finishers' p 0.5 and 0.9 count for less than
    // the non-finishers' 0.2.
    const [ranked] = got.groups;
    expect(ranked?.unweighted?.finished.value).toBeCloseTo(4 / 6, 12);
    expect(ranked?.weighted?.finished.value).toBeCloseTo((2 + 3 / 0.9) / (2 + 5 + 5 + 3 / 0.9), 12);
  });

  it("matches ipw.ts over more participants than one batch of resamples holds", async () => {
    // 2,500 participants in Ranked: the script draws its 2.5 million resample picks in batches.
    const many: Person[] = Array.from({ length: 2500 }, (_, i) => ({
      arm: i % 5 === 0 ? 1 : 0,
      method: "adaptive",
      p: 0.05 + ((i * 37) % 95) / 100,
      impressions: 1 + (i % 7),
      clicks: i % 3 === 0 ? 1 + (i % 5 === 1 ? 1 : 0) : 0,
      finished: i % 4 !== 0,
    }));
    const script = await writePackage(
      await folder(),
      many,
      STUDY("assignment:\n  method: adaptive\n  metric: like_rate\n  seed: 2147483647\n"),
    );
    const got = await figures(script);
    for (const [i, g] of got.groups.entries()) {
      const { values, probabilities } = ownValues(many, i, "ctr");
      const want = ipwEstimate(values, probabilities, armSeed(2147483647, i));
      expect(want.value).toBe(hajekMean(values, probabilities));
      for (const k of ["value", "low", "high"] as const)
        expect(g.weighted?.ctr?.[k], `${g.name} ${k}`).toBeCloseTo(want[k] as number, 12);
      // No plays: like_rate has no participant, and ipw says so.
      expect(g.ipw).toEqual({ value: null, low: null, high: null });
    }
  });

  it("leaves balanced studies' figures as they were, and adds the weighted ones with --weighted", async () => {
    const balanced = ADAPTIVE.map((p) => ({ ...p, method: "balanced", p: 1 }));
    const script = await writePackage(await folder(), balanced, STUDY(""));
    const plain = await figures(script);
    for (const g of plain.groups)
      for (const key of ["weighted", "unweighted", "ipw"]) expect(g).not.toHaveProperty(key);
    const report = (await run(PYTHON, [script], { env: { ...process.env, FEEDLAB_CSV: "1" } })).stdout;
    expect(report).not.toContain("weighted");

    const asked = await figures(script, "--weighted");
    for (const g of asked.groups) {
      expect(g).not.toHaveProperty("ipw");
      // Every probability 1: weighted and unweighted agree.
      expect(g.weighted).toEqual(g.unweighted);
    }
    expect(asked.groups.map((g) => g.ctr)).toEqual(plain.groups.map((g) => g.ctr));
  });
});
