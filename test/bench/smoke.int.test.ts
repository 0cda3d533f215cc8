import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const dir = import.meta.dirname;

/** Runs `run.ts --smoke` and answers its exit code and output. */
function smokeRun(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dir, "run.ts"), "--smoke"], {
      cwd: path.resolve(dir, "../.."),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, out }));
  });
}

/**
 * The benchmarks are not run by the suite, so one could break unnoticed: each runs here at the
 * smallest sizes (run.ts's SMOKE) and must print its figures, or be named with why it stays out.
 */
describe("the benchmarks' smoke run", () => {
  it("runs every benchmark at its smallest sizes and prints its figures, or says why it is left out", async () => {
    const { code, out } = await smokeRun();
    expect(code, out).toBe(0);
    const blocks = out.split(/\n(?===)/).filter((b) => b.startsWith("=="));
    const files = readdirSync(dir).filter((f) => f.endsWith(".bench.ts"));
    expect(blocks).toHaveLength(files.length);
    const ran = blocks.filter((b) => !/^== \S+\.bench\.ts: not in the smoke run \(.+\)/.test(b));
    expect(ran.length).toBeGreaterThan(0);
    for (const block of ran) {
      const [title = "", ...lines] = block.trim().split("\n");
      const figures = lines.filter((l) => /^ {2}\S.*\S\s{2,}\S/.test(l) || /^ {2}.{32} \S/.test(l));
      // A figure or more, then the time it took.
      expect([title, figures.length > 0, /^ {2}\(\d+\.\d s\)$/.test(lines.at(-1) ?? "")]).toEqual([
        title,
        true,
        true,
      ]);
    }
  }, 120_000);
});
