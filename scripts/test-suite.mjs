#!/usr/bin/env node
// `npm test`: every tier in order (lint and types, unit, integration, browser), stopping at the first that
// fails, then each tier's time and the ten slowest files of the vitest tiers, so a run says where its
// minutes went (CI allows 90; the goal is under 30 on an ordinary day). The figures are printed even
// when a tier fails; test/harness/suite-reporter.ts writes them to .cache/test-times/<tier>.json.
//
// A test file whose worker process died (Node's own crash, seen as "Worker exited unexpectedly": the
// file never ended, no test of it failed) runs once more on its own, and the summary names it. A file
// with a failing test never runs again: only a dead process is retried, never a wrong answer. The crash
// seen on 2026-12-02 (Node 24.21, in a worker running the embedded database's WebAssembly) was V8's own
// check "jit_page_->allocations_.erase(addr) == 1": a wasm-to-JS import wrapper freed twice when it tiers
// up while wasm code GC has marked it dying (nodejs/node#66366). The workers now run without wasm code
// GC (vitest.config.ts), which removes that race; the retry stays for whatever else kills a worker.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";

const ROOT = new URL("..", import.meta.url).pathname;
const TIMES = `${ROOT}.cache/test-times`;
const SLOWEST = 10;

/**
 * The tiers, in order: a name and the commands it runs (`together`: all at once, and beside the tier's
 * vitest project if it has one, each one's output printed when it ends); `project` marks a vitest tier.
 * The lint and the type check each keep about one core busy and leave room beside them: run with the
 * unit tests, the three took 122 s on 2026-12-03 against 42 + 97 one after the other.
 */
const TIERS = [
  {
    name: "checks and unit",
    project: "unit",
    together: true,
    commands: [
      ["npm", "run", "--silent", "lint"],
      ["npm", "run", "--silent", "typecheck"],
      ["npm", "test", "--silent", "-w", "web"],
    ],
  },
  { name: "int", project: "int", commands: [] },
  // The browser files, and beside them a second lane (the files that drive processes, and console files
  // that time nothing: vitest.config.ts); its output is printed when it ends.
  { name: "e2e", project: "e2e", beside: "e2e-beside", commands: [] },
];

/** Runs a command; its exit code. With `quiet`, its output is kept and printed when it ends. */
function run([command, ...args], env = {}, quiet = false) {
  return new Promise((resolve) => {
    const stdio = quiet ? ["ignore", "pipe", "pipe"] : "inherit";
    const child = spawn(command, args, { cwd: ROOT, stdio, env: { ...process.env, ...env } });
    const kept = [];
    child.stdout?.on("data", (d) => kept.push(d));
    child.stderr?.on("data", (d) => kept.push(d));
    child.on("exit", (code, signal) => {
      if (quiet) process.stdout.write(Buffer.concat(kept));
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** Runs a vitest project (or some of its files); the files' times and states, and the exit code. */
async function vitest(project, files, report, quiet) {
  const args = ["npx", "vitest", "run", "--project", project, "--reporter=default"];
  args.push("--reporter=./test/harness/suite-reporter.ts", ...files);
  const code = await run(args, { FEEDLAB_TEST_TIMES: report }, quiet);
  try {
    return { code, files: JSON.parse(readFileSync(report, "utf8")) };
  } catch {
    return { code, files: [] }; // vitest stopped before the end of the run (a config error, say)
  }
}

/** A vitest tier: the run, then once more the files whose worker died, if nothing else failed. */
async function vitestTier(project, notes, quiet = false) {
  const first = await vitest(project, [], `${TIMES}/${project}.json`, quiet);
  const died = first.files.filter((f) => f.state === "pending").map((f) => f.file);
  const failed = first.files.filter((f) => f.state === "failed");
  if (first.code === 0 || died.length === 0 || failed.length > 0) return first;
  notes.push(`${project}: the worker of ${died.join(", ")} exited before the file ended; it ran again`);
  const again = await vitest(project, died, `${TIMES}/${project}-again.json`, quiet);
  const rest = first.files.filter((f) => f.state !== "pending");
  const passed = again.code === 0 && again.files.every((f) => f.state !== "pending");
  return { code: passed ? 0 : 1, files: [...rest, ...again.files] };
}

/**
 * The machine's speed in the same run: one core hashing 128 MiB (SHA-256), the fastest of three, before
 * and after the tiers. A slow run on a slow or busy machine shows here too; on an idle one it does not.
 */
function floorMs() {
  const block = Buffer.alloc(16 * 1024 * 1024, 7);
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    const hash = createHash("sha256");
    for (let i = 0; i < 8; i++) hash.update(block);
    hash.digest();
    best = Math.min(best, performance.now() - start);
  }
  return Math.round(best);
}

const minutes = (ms) => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

mkdirSync(TIMES, { recursive: true });
const floorBefore = floorMs();
const suiteStart = Date.now();
const done = [];
const notes = [];
let failed = null;
for (const tier of TIERS) {
  const start = Date.now();
  let code = 0;
  let files = [];
  const together = tier.together ? Promise.all(tier.commands.map((command) => run(command, {}, true))) : null;
  if (tier.project) {
    const lanes = [vitestTier(tier.project, notes)];
    if (tier.beside) lanes.push(vitestTier(tier.beside, notes, true));
    const ended = await Promise.all(lanes);
    code = ended.find((lane) => lane.code !== 0)?.code ?? 0;
    files = ended.flatMap((lane) => lane.files);
  }
  if (together) {
    const codes = await together;
    code = code || (codes.find((c) => c !== 0) ?? 0);
  } else
    for (const command of tier.commands) {
      if (code !== 0) break;
      code = await run(command);
    }
  done.push({ tier, ms: Date.now() - start, code, files });
  if (code !== 0) {
    failed = tier.name;
    break;
  }
}

const lines = [
  "",
  `npm test: ${minutes(Date.now() - suiteStart)} in all${failed ? `, stopped at ${failed} (failed)` : ""}`,
  `  floor: SHA-256 of 128 MiB on one core took ${floorBefore} ms before the tiers, ${floorMs()} ms after`,
];
for (const { tier, ms, code, files } of done) {
  const count = files.length > 0 ? ` (${files.length} files)` : "";
  lines.push(`  ${tier.name.padEnd(15)} ${minutes(ms).padStart(6)}${count}${code === 0 ? "" : "  FAILED"}`);
  for (const f of [...files].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST))
    lines.push(
      `         ${minutes(f.ms).padStart(6)}  ${f.file}${f.state === "passed" ? "" : ` (${f.state})`}`,
    );
}
for (const note of notes) lines.push(`  note: ${note}`);
console.log(lines.join("\n"));
process.exit(failed ? 1 : 0);
