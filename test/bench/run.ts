// `npm run bench [-- NAME...]`: runs the benchmarks in this folder (each `*.bench.ts` exports
// `name`, `description` and `run()`), printing their figures. Figures go into the README by hand,
// with the machine they ran on.
import { readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";

interface Benchmark {
  readonly name: string;
  readonly description: string;
  /** Runs the benchmark and returns its figures, already rounded for humans. */
  run(): Promise<Record<string, number | string>>;
}

const dir = import.meta.dirname;
const wanted = new Set(process.argv.slice(2));
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .sort();

const cpu = os.cpus()[0]?.model ?? "unknown CPU";
console.log(
  `Machine: ${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
);
let ran = 0;
for (const file of files) {
  const bench = (await import(path.join(dir, file))) as Benchmark;
  if (wanted.size > 0 && !wanted.has(bench.name)) continue;
  ran++;
  console.log(`\n== ${bench.name}: ${bench.description}`);
  const started = performance.now();
  const figures = await bench.run();
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(32)} ${v}`);
  console.log(`  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
if (ran === 0)
  console.log(wanted.size > 0 ? `No benchmark named ${[...wanted].join(", ")}` : "No benchmarks yet.");
