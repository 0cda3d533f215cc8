import type { KernelContext } from "./context.ts";

/**
 * Top-K by dot product: for each query row, the K target rows with the highest score, skipping masked
 * targets, the query's own row (item-to-item) and the query's excluded targets (what a participant
 * already interacted with). Works on a fixed chunk of queries, like the ALS kernels.
 */

/** Queries per chunk. */
const TOPK_CHUNK = 64;

export interface TopKArgs {
  /** Query factors, row-major with `k` columns. */
  readonly Q: Float32Array;
  /** Target factors, `targets` x `k`. */
  readonly T: Float32Array;
  readonly targets: number;
  readonly k: number;
  /** How many to keep per query. */
  readonly K: number;
  /** The Q rows to answer, in output order. */
  readonly queryRows: Int32Array;
  /** Per Q row: targets to leave out (CSR over Q rows), or empty arrays for none. */
  readonly excludePtr: Int32Array;
  readonly excludeIdx: Int32Array;
  /** 1 = a target may be returned; empty for all. */
  readonly mask: Uint8Array;
  /** 1: leave out the target with the query's own row number (item-to-item). */
  readonly selfExclude: number;
  /** queryRows.length x K: target rows best first, -1 where fewer than K qualify. */
  readonly outIdx: Int32Array;
  readonly outScore: Float32Array;
}

export interface TopKSimdArgs extends TopKArgs {
  /** `targets` scores per thread slot, in the kernels' memory. */
  readonly scratch: Float32Array;
}

export const topKChunks = (queries: number) => Math.ceil(queries / TOPK_CHUNK);

/** Queries scored together in one pass over the targets (each target row is loaded once per block). */
const BLOCK = 4;

/** Selection state of one thread: a min-heap of K (score, row) and a mark per target. */
class Selector {
  readonly a: TopKArgs;
  readonly heapScore: Float64Array;
  readonly heapIdx: Int32Array;
  readonly blocked: Uint8Array;
  constructor(a: TopKArgs) {
    this.a = a;
    this.heapScore = new Float64Array(a.K);
    this.heapIdx = new Int32Array(a.K);
    this.blocked = new Uint8Array(a.targets);
  }

  /** Writes the top K of query position `pos`, whose scores are `scores[base + j]`. */
  select(pos: number, scores: Float32Array | Float64Array, base: number): void {
    const { targets, K, queryRows, excludePtr, excludeIdx, mask, selfExclude, outIdx, outScore } = this.a;
    const { heapScore, heapIdx, blocked } = this;
    const hasMask = mask.length > 0;
    const row = queryRows[pos] as number;
    const exLo = excludePtr.length > 0 ? (excludePtr[row] as number) : 0;
    const exHi = excludePtr.length > 0 ? (excludePtr[row + 1] as number) : 0;
    for (let e = exLo; e < exHi; e++) blocked[excludeIdx[e] as number] = 1;
    if (selfExclude === 1 && row < targets) blocked[row] = 1;
    let size = 0;
    for (let j = 0; j < targets; j++) {
      if ((hasMask && mask[j] === 0) || blocked[j] === 1) continue;
      const s = scores[base + j] as number;
      if (size < K) {
        // Sift up.
        let i = size++;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!worse(s, j, heapScore[parent] as number, heapIdx[parent] as number)) break;
          heapScore[i] = heapScore[parent] as number;
          heapIdx[i] = heapIdx[parent] as number;
          i = parent;
        }
        heapScore[i] = s;
        heapIdx[i] = j;
      } else if (worse(heapScore[0] as number, heapIdx[0] as number, s, j)) {
        // Replace the root, sift down.
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= size) break;
          const r = l + 1;
          const c =
            r < size &&
            worse(heapScore[r] as number, heapIdx[r] as number, heapScore[l] as number, heapIdx[l] as number)
              ? r
              : l;
          if (!worse(heapScore[c] as number, heapIdx[c] as number, s, j)) break;
          heapScore[i] = heapScore[c] as number;
          heapIdx[i] = heapIdx[c] as number;
          i = c;
        }
        heapScore[i] = s;
        heapIdx[i] = j;
      }
    }
    for (let e = exLo; e < exHi; e++) blocked[excludeIdx[e] as number] = 0;
    if (selfExclude === 1 && row < targets) blocked[row] = 0;
    // Best first.
    const order = Array.from({ length: size }, (_, i) => i).sort((x, y) =>
      worse(heapScore[x] as number, heapIdx[x] as number, heapScore[y] as number, heapIdx[y] as number)
        ? 1
        : -1,
    );
    const out = pos * K;
    for (let r = 0; r < K; r++) {
      const h = order[r];
      outIdx[out + r] = h === undefined ? -1 : (heapIdx[h] as number);
      outScore[out + r] = h === undefined ? 0 : (heapScore[h] as number);
    }
  }
}

/** Scores in double precision, four queries per pass over the targets. */
export function topKChunk(a: TopKArgs, chunk: number): void {
  const { Q, T, targets, k, queryRows, mask } = a;
  const start = chunk * TOPK_CHUNK;
  const end = Math.min(queryRows.length, start + TOPK_CHUNK);
  const hasMask = mask.length > 0;
  const q = new Float64Array(BLOCK * k);
  const scores = new Float64Array(BLOCK * targets);
  const selector = new Selector(a);
  for (let b0 = start; b0 < end; b0 += BLOCK) {
    const n = Math.min(BLOCK, end - b0);
    q.fill(0);
    for (let b = 0; b < n; b++) {
      const off = (queryRows[b0 + b] as number) * k;
      for (let f = 0; f < k; f++) q[b * k + f] = Q[off + f] as number;
    }
    // 1. Scores of up to four queries against every target.
    for (let j = 0; j < targets; j++) {
      if (hasMask && mask[j] === 0) continue;
      const to = j * k;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let f = 0; f < k; f++) {
        const t = T[to + f] as number;
        s0 += t * (q[f] as number);
        s1 += t * (q[k + f] as number);
        s2 += t * (q[2 * k + f] as number);
        s3 += t * (q[3 * k + f] as number);
      }
      scores[j] = s0;
      scores[targets + j] = s1;
      scores[2 * targets + j] = s2;
      scores[3 * targets + j] = s3;
    }
    // 2. Per query: the K best, ties to the lower target row.
    for (let b = 0; b < n; b++) selector.select(b0 + b, scores, b * targets);
  }
}

/** The same with the scores from the WebAssembly SIMD kernel (single precision). */
export function topKChunkSimd(a: TopKSimdArgs, chunk: number, ctx: KernelContext): void {
  const K = ctx.kernels;
  if (!K) throw new Error("topKChunkSimd needs the SIMD kernels");
  const { Q, T, targets, k, queryRows, scratch } = a;
  const start = chunk * TOPK_CHUNK;
  const end = Math.min(queryRows.length, start + TOPK_CHUNK);
  const scores = scratch.subarray(ctx.slot * targets, (ctx.slot + 1) * targets);
  const selector = new Selector(a);
  for (let pos = start; pos < end; pos++) {
    K.dots(Q.byteOffset + (queryRows[pos] as number) * k * 4, T.byteOffset, targets, k, scores.byteOffset);
    selector.select(pos, scores, 0);
  }
}

/** True when (s1, j1) ranks below (s2, j2): a lower score, or the same score and a higher row. */
function worse(s1: number, j1: number, s2: number, j2: number): boolean {
  return s1 < s2 || (s1 === s2 && j1 > j2);
}
