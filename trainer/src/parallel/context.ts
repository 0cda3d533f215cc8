import type { SimdKernels } from "./simd.ts";

/** What a kernel chunk runs with: the thread's SIMD kernels (null without) and its scratch slot. */
export interface KernelContext {
  readonly kernels: SimdKernels | null;
  /** 0..workers-1 in the workers, `workers` in the calling thread: picks a thread's scratch space. */
  readonly slot: number;
}
