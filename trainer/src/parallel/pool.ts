import os from "node:os";
import { Worker } from "node:worker_threads";
import type { KernelContext } from "./context.ts";
import { type OpArgs, type OpName, runChunk } from "./ops.ts";
import { createKernelMemory, instantiateKernels, MAX_PAGES, simdAvailable } from "./simd.ts";
import type { Task, TaskReply, WorkerInit } from "./worker.ts";

/**
 * Threads for the numeric kernels. Arrays the kernels read or write must be allocated by the pool
 * (`float32`, `float64`, `int32`, `uint8`) or copied in (`share`): with SIMD they live in the one
 * shared WebAssembly memory every thread's kernels address; with plain workers in shared buffers.
 * Results never depend on the number of workers: kernels work on fixed chunks, and a chunk's output
 * does not depend on who ran it.
 */
export interface ComputePool {
  /** Worker threads; 0 = the calling thread does the work. */
  readonly size: number;
  /** True when the pool runs the WebAssembly SIMD kernels (single precision). */
  readonly simd: boolean;
  float32(n: number): Float32Array;
  float64(n: number): Float64Array;
  int32(n: number): Int32Array;
  uint8(n: number): Uint8Array;
  /** The array itself when the pool's kernels can already use it, else a copy they can. */
  share<T extends Float32Array | Float64Array | Int32Array | Uint8Array>(array: T): T;
  /** Runs chunks 0..chunks-1 of the kernel; resolves when all are done. */
  run<O extends OpName>(op: O, args: OpArgs[O], chunks: number): Promise<void>;
  /** Ends the workers. Idempotent. */
  close(): Promise<void>;
}

/** The number of workers when none is configured: one per core. */
export const defaultWorkers = () => Math.max(1, os.availableParallelism());

export interface PoolOptions {
  /** Run the WebAssembly SIMD kernels (default: when the runtime supports them). */
  readonly simd?: boolean;
}

type Typed = Float32Array | Float64Array | Int32Array | Uint8Array;
type TypedCtor<T extends Typed> = {
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T;
  new (n: number): T;
  BYTES_PER_ELEMENT: number;
};

const PAGE = 65_536;

/** A bump allocator over a shared WebAssembly memory (nothing is freed before the pool goes). */
function kernelArena() {
  const memory = createKernelMemory();
  const buffers = new WeakSet<ArrayBufferLike>([memory.buffer]);
  let top = 0;
  return {
    memory,
    owns: (array: Typed) => buffers.has(array.buffer),
    alloc<T extends Typed>(Ctor: TypedCtor<T>, n: number): T {
      const at = Math.ceil(top / 16) * 16;
      const end = at + Math.max(1, n) * Ctor.BYTES_PER_ELEMENT;
      const pages = memory.buffer.byteLength / PAGE;
      if (end > memory.buffer.byteLength) {
        const want = Math.ceil(end / PAGE);
        if (want > MAX_PAGES)
          throw new RangeError(`training needs more than ${MAX_PAGES / 16} MiB of kernel memory`);
        // Grow by at least half again, so a run allocating many arrays grows a few times only.
        memory.grow(Math.min(MAX_PAGES, Math.max(want, Math.ceil(pages * 1.5))) - pages);
      }
      top = end;
      const buffer = memory.buffer;
      buffers.add(buffer);
      return new Ctor(buffer, at, n);
    },
  };
}

export function createComputePool(workers: number, options: PoolOptions = {}): ComputePool {
  const size = Math.max(0, Math.floor(workers));
  const simd = options.simd ?? simdAvailable();
  const arena = simd ? kernelArena() : null;
  const shared = size > 0;
  const alloc = <T extends Typed>(Ctor: TypedCtor<T>, n: number): T => {
    if (arena) return arena.alloc(Ctor, n);
    if (shared) return new Ctor(new SharedArrayBuffer(Math.max(1, n) * Ctor.BYTES_PER_ELEMENT), 0, n);
    return new Ctor(n);
  };
  const local: KernelContext = { slot: size, kernels: arena ? instantiateKernels(arena.memory) : null };
  const threads: Worker[] = [];
  const pending = new Map<
    number,
    { left: number; resolve: () => void; reject: (err: Error) => void; error?: Error }
  >();
  let nextId = 1;
  let closed = false;
  /** Set when a worker died: the pool cannot finish tasks any more. */
  let broken: Error | null = null;
  const fail = (err: Error) => {
    broken ??= err;
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(err);
    }
  };
  // Idle workers do not keep the process alive; a task in flight does.
  const setBusy = (busy: boolean) => {
    for (const t of threads) {
      if (busy) t.ref();
      else t.unref();
    }
  };
  for (let slot = 0; slot < size; slot++) {
    const workerData: WorkerInit = { slot, memory: arena?.memory ?? null };
    const worker = new Worker(new URL("./worker.ts", import.meta.url), { workerData });
    worker.unref();
    worker.on("message", (reply: TaskReply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      if (!reply.ok) p.error ??= new Error(`compute worker failed: ${reply.error}`);
      if (--p.left === 0) {
        pending.delete(reply.id);
        if (pending.size === 0) setBusy(false);
        if (p.error) p.reject(p.error);
        else p.resolve();
      }
    });
    worker.on("error", (err) => fail(err));
    worker.on("exit", (code) => {
      if (!closed) fail(new Error(`compute worker exited with code ${code}`));
    });
    threads.push(worker);
  }

  return {
    size,
    simd,
    float32: (n) => alloc(Float32Array, n),
    float64: (n) => alloc(Float64Array, n),
    int32: (n) => alloc(Int32Array, n),
    uint8: (n) => alloc(Uint8Array, n),
    share<T extends Typed>(array: T): T {
      if (arena ? arena.owns(array) : !shared || array.buffer instanceof SharedArrayBuffer) return array;
      const copy = alloc(array.constructor as TypedCtor<T>, array.length);
      copy.set(array as never);
      return copy;
    },
    run<O extends OpName>(op: O, args: OpArgs[O], chunks: number): Promise<void> {
      if (closed) return Promise.reject(new Error("compute pool closed"));
      if (broken) return Promise.reject(broken);
      if (chunks <= 0) return Promise.resolve();
      if (!shared) {
        for (let c = 0; c < chunks; c++) runChunk(op, args, c, local);
        return Promise.resolve();
      }
      const id = nextId++;
      const counter = new Int32Array(new SharedArrayBuffer(4));
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { left: threads.length, resolve, reject });
        setBusy(true);
        const task: Task = { id, op, args, counter, chunks };
        for (const t of threads) t.postMessage(task);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      fail(new Error("compute pool closed"));
      await Promise.all(threads.map((t) => t.terminate()));
    },
  };
}
