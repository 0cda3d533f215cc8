// `npm run bench [-- NAME...]`: runs the benchmarks in this folder (each `*.bench.ts` exports
// `name`, `description` and `run()`), printing their figures. Figures go into the README by hand,
// with the machine they ran on. `npm run bench -- --smoke [NAME...]` runs each at the smallest sizes
// of SMOKE below, only to show that it still runs and prints its figures (which then mean nothing);
// test/bench/smoke.int.test.ts does so in the int tier.
import { readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";

interface Benchmark {
  readonly name: string;
  readonly description: string;
  /** Runs the benchmark and returns its figures, already rounded for humans. */
  run(): Promise<Record<string, number | string>>;
}

/**
 * The smoke run's sizes of each benchmark (environment set before its module loads), or why it has
 * none: a benchmark that needs a browser, a broker or minutes even at its smallest stays out of the
 * smoke run and says so. A benchmark missing here fails the smoke run.
 */
const SMOKE: Record<string, Record<string, string> | { readonly skip: string }> = {
  "als.bench.ts": {
    BENCH_USERS: "300",
    BENCH_VIDEOS: "200",
    BENCH_INTERACTIONS: "3000",
    BENCH_FACTORS: "8",
    BENCH_ITERATIONS: "2",
    BENCH_CLUSTERS: "5",
    BENCH_WORKERS: "1",
  },
  "big-study.bench.ts": { skip: "starts PostgreSQL and a browser, and seeds a study before it measures" },
  "catch-up.bench.ts": { BENCH_BATCHES: "12" },
  "change-propagation.bench.ts": { skip: "starts PostgreSQL and two server processes" },
  "external.bench.ts": {
    BENCH_EXTERNAL_USERS: "20",
    BENCH_EXTERNAL_DELAY_MS: "50",
    BENCH_BUILTIN_RATE: "20",
    BENCH_SECONDS: "2",
    BENCH_VIDEOS: "100",
    BENCH_EVENTS: "1000",
  },
  "feed.bench.ts": {
    skip: "seeds and warms a server process before its timed load: 83 s at its smallest sizes on 2 busy cores",
  },
  "intake-kafka.bench.ts": { skip: "starts PostgreSQL and a Kafka broker of its own" },
  "intake.bench.ts": { skip: "drives a server process and its floors for a fixed time" },
  "log-encryption.bench.ts": { BENCH_RECORDS: "5000" },
  "participant-page.bench.ts": { skip: "needs a browser" },
  "power.bench.ts": { BENCH_PER_ARM: "60", BENCH_EFFECT: "0.1", BENCH_REPEATS: "1" },
  "ramp.bench.ts": { BENCH_SECONDS: "2", BENCH_FROM: "1", BENCH_MAX: "1", BENCH_FLOOR_SECONDS: "1" },
  "results.bench.ts": { BENCH_EVENTS: "2000" },
  "simulate.bench.ts": { BENCH_PARTICIPANTS: "3", BENCH_SECONDS: "3" },
  "surveys-csv.bench.ts": {
    skip: "starts server processes in three memory settings: 64 s at its smallest sizes on 2 busy cores",
  },
  "template-editor.bench.ts": { skip: "needs a browser" },
  "uploads.bench.ts": { BENCH_UPLOAD_MB: "4" },
};

const dir = import.meta.dirname;
const smoke = process.argv.includes("--smoke");
const wanted = new Set(process.argv.slice(2).filter((a) => a !== "--smoke"));
/** A benchmark's name is its file's, without `.bench.ts` (checked when it loads). */
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => wanted.size === 0 || wanted.has(f.replace(/\.bench\.ts$/, "")))
  .sort();

const cpu = os.cpus()[0]?.model ?? "unknown CPU";
console.log(
  `Machine: ${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
);
let ran = 0;
for (const file of files) {
  if (smoke) {
    const sizes = SMOKE[file];
    if (sizes === undefined) throw new Error(`${file} has no smoke sizes in run.ts's SMOKE`);
    if ("skip" in sizes) {
      console.log(`\n== ${file}: not in the smoke run (${sizes.skip})`);
      continue;
    }
    Object.assign(process.env, sizes);
  }
  const bench = (await import(path.join(dir, file))) as Benchmark;
  if (`${bench.name}.bench.ts` !== file)
    throw new Error(`${file} names itself ${bench.name}: name it as its file`);
  ran++;
  console.log(`\n== ${bench.name}: ${bench.description}`);
  const started = performance.now();
  const figures = await bench.run();
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(32)} ${v}`);
  console.log(`  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
if (ran === 0)
  console.log(wanted.size > 0 ? `No benchmark named ${[...wanted].join(", ")}` : "No benchmarks yet.");
// The run is over: modules a benchmark imported (the API's) may keep timers or workers alive.
process.exit(0);
