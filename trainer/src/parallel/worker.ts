// A compute worker: takes chunks of a kernel from a shared counter until none are left, then reports.
import { parentPort, workerData } from "node:worker_threads";
import type { KernelContext } from "./context.ts";
import { type OpArgs, type OpName, runChunk } from "./ops.ts";
import { instantiateKernels } from "./simd.ts";

export interface WorkerInit {
  /** This worker's scratch slot (0..workers-1). */
  readonly slot: number;
  /** The pool's shared kernel memory, when it runs the SIMD kernels. */
  readonly memory: WebAssembly.Memory | null;
}

export interface Task {
  readonly id: number;
  readonly op: OpName;
  readonly args: OpArgs[OpName];
  /** Shared Int32Array: the next chunk to take (Atomics.add). */
  readonly counter: Int32Array;
  readonly chunks: number;
}

export type TaskReply =
  | { readonly id: number; readonly ok: true }
  | { readonly id: number; readonly ok: false; readonly error: string };

const init = workerData as WorkerInit;
const ctx: KernelContext = { slot: init.slot, kernels: init.memory ? instantiateKernels(init.memory) : null };

parentPort?.on("message", (task: Task) => {
  try {
    for (;;) {
      const chunk = Atomics.add(task.counter, 0, 1);
      if (chunk >= task.chunks) break;
      runChunk(task.op, task.args, chunk, ctx);
    }
    parentPort?.postMessage({ id: task.id, ok: true } satisfies TaskReply);
  } catch (err) {
    parentPort?.postMessage({
      id: task.id,
      ok: false,
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    } satisfies TaskReply);
  }
});
