import {
  type GramArgs,
  gramChunk,
  type SolveArgs,
  type SolveSimdArgs,
  solveChunk,
  solveChunkSimd,
} from "../als/cg.ts";
import type { KernelContext } from "./context.ts";
import { type TopKArgs, type TopKSimdArgs, topKChunk, topKChunkSimd } from "./topk.ts";

/**
 * The kernels a compute pool can run, by name: each takes its arguments (typed arrays, shared with
 * workers, and numbers), one chunk index and the thread's context. Chunks are independent, so any
 * thread may take any chunk.
 */
const OPS = {
  gram: gramChunk,
  solve: solveChunk,
  solveSimd: solveChunkSimd,
  topk: topKChunk,
  topkSimd: topKChunkSimd,
} satisfies Record<string, (args: never, chunk: number, ctx: KernelContext) => void>;

export type OpName = keyof typeof OPS;
export interface OpArgs {
  gram: GramArgs;
  solve: SolveArgs;
  solveSimd: SolveSimdArgs;
  topk: TopKArgs;
  topkSimd: TopKSimdArgs;
}

/** Runs chunk `chunk` of `op`. */
export function runChunk<O extends OpName>(op: O, args: OpArgs[O], chunk: number, ctx: KernelContext): void {
  (OPS[op] as (args: OpArgs[O], chunk: number, ctx: KernelContext) => void)(args, chunk, ctx);
}
