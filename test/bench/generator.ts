// Starts the feed benchmark's load generator in its own process (generator.process.ts), pinned to the
// machine's last core where `taskset` exists and there is more than one core, and runs jobs on it.
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import os from "node:os";
import path from "node:path";
import type { LoadResult } from "./load.ts";

/** What the generator sends, how, for how long; the server's pid for its CPU. */
export interface GeneratorJob {
  readonly target:
    | {
        readonly kind: "page";
        readonly url: string;
        readonly surface: "feed" | "watch";
        readonly users: readonly { readonly sessionId: string; readonly cookie: string }[];
        readonly videoIds: readonly string[];
      }
    | { readonly kind: "floor"; readonly url: string; readonly bytes: number };
  readonly load:
    | { readonly kind: "open"; readonly rate: number }
    | { readonly kind: "closed"; readonly concurrency: number };
  readonly seconds: number;
  readonly serverPid: number | undefined;
}

/** A job's result: the load's figures, the mean body size, and the generator's worst timer delay. */
export type GeneratorResult = LoadResult & { readonly meanBytes: number; readonly loopDelayMaxMs: number };

export interface Generator {
  /** The cores the generator may run on, as `taskset` was given them, or "any". */
  readonly cores: string;
  run(job: GeneratorJob): Promise<GeneratorResult>;
  stop(): Promise<void>;
}

/** Whether `taskset` (util-linux) is on this machine. */
function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export async function startGenerator(): Promise<Generator> {
  const cpus = os.availableParallelism();
  const pinned = cpus > 1 && hasTaskset();
  const cores = pinned ? String(cpus - 1) : "any";
  const child: ChildProcess = fork(path.join(import.meta.dirname, "generator.process.ts"), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  await new Promise((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  const pin = (pid: number | undefined, to: string) => {
    if (pinned && pid !== undefined)
      execFileSync("taskset", ["-a", "-p", "-c", to, String(pid)], { stdio: "ignore" });
  };
  pin(child.pid, cores);
  return {
    cores,
    run: (job) =>
      new Promise((resolve, reject) => {
        child.once("message", (m: { result?: GeneratorResult; error?: string }) => {
          if (m.result) resolve(m.result);
          else reject(new Error(`the load generator failed: ${m.error}`));
        });
        child.send(job);
      }),
    stop: async () => {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill();
      await exited;
    },
  };
}
