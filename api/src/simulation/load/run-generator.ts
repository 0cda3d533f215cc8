import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { GeneratorMessage, GeneratorResult, LoadCounters, LoadPlan } from "./protocol.ts";

const WORKER = fileURLToPath(new URL("./generator.worker.ts", import.meta.url));

/** How the generator's process ended. */
export type GeneratorEnd =
  | { readonly kind: "done"; readonly result: GeneratorResult }
  | { readonly kind: "join_limited"; readonly joined: number; readonly retryAfter: string | null }
  | { readonly kind: "crashed"; readonly code: number | null; readonly signal: string | null };

export interface GeneratorListener {
  onProgress(counters: LoadCounters): void;
  onAcknowledged(ids: readonly string[]): void;
}

/**
 * Runs the load generator in a process of its own (generator.worker.ts) and relays what it reports.
 * Resolves when it is done, at once when it reports the join rate limit (the process is then killed),
 * or when it dies. Its stderr is this process's (a crash's trace shows); its stdout is dropped, so the
 * CLI's stdout keeps only the report.
 */
export function runGeneratorProcess(plan: LoadPlan, listener: GeneratorListener): Promise<GeneratorEnd> {
  const child = fork(WORKER, [], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  child.send(plan);
  return new Promise((resolve) => {
    let result: GeneratorResult | null = null;
    child.on("message", (m: GeneratorMessage) => {
      if (m.kind === "progress") listener.onProgress(m.counters);
      else if (m.kind === "acknowledged") listener.onAcknowledged(m.ids);
      else if (m.kind === "done") result = m.result;
      else {
        child.kill("SIGKILL");
        resolve({ kind: "join_limited", joined: m.joined, retryAfter: m.retryAfter });
      }
    });
    child.once("exit", (code, signal) => {
      resolve(result !== null ? { kind: "done", result } : { kind: "crashed", code, signal });
    });
  });
}
