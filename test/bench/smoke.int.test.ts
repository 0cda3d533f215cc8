import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const dir = import.meta.dirname;

/** Runs `run.ts --smoke NAME` and answers its exit code and output. */
function smokeRun(name: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dir, "run.ts"), "--smoke", name], {
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

const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .sort();

/**
 * The benchmarks are not run by the suite, so one could break unnoticed: each runs here at the
 * smallest sizes (run.ts's SMOKE), in a process of its own, and must print its figures, or be named
 * with why it stays out.
 */
describe("the benchmarks' smoke run", () => {
  it.each(files)(
    "%s runs at its smallest sizes and prints its figures, or says why it stays out",
    async (file) => {
      const { code, out } = await smokeRun(file.replace(/\.bench\.ts$/, ""));
      expect(code, out).toBe(0);
      const blocks = out.split(/\n(?===)/).filter((b) => b.startsWith("=="));
      expect(blocks, out).toHaveLength(1);
      const block = blocks[0] ?? "";
      if (/^== \S+\.bench\.ts: not in the smoke run \(.+\)/.test(block)) return;
      const [title = "", ...lines] = block.trim().split("\n");
      const figures = lines.filter((l) => /^ {2}\S.*\S\s{2,}\S/.test(l) || /^ {2}.{32} \S/.test(l));
      // A figure or more, then the time it took.
      expect([title, figures.length > 0, /^ {2}\(\d+\.\d s\)$/.test(lines.at(-1) ?? "")]).toEqual([
        title,
        true,
        true,
      ]);
    },
    240_000,
  );
});
