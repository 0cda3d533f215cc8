import type { ComputePool } from "./parallel/pool.ts";
import { topKChunks } from "./parallel/topk.ts";
import type { Csr } from "./sparse.ts";

/** Per query, up to K target rows best first (`-1` pads a list shorter than K), with their scores. */
export interface TopLists {
  readonly K: number;
  readonly queries: Int32Array;
  readonly indices: Int32Array;
  readonly scores: Float32Array;
}

const EMPTY_I32 = new Int32Array(0);
const EMPTY_U8 = new Uint8Array(0);

/**
 * The K targets with the highest dot product for each query row, leaving out masked targets, each
 * query's excluded targets (rows of `exclude`, indexed by query row) and, with `selfExclude`, the
 * target with the query's own row number.
 */
export async function topByDot(
  pool: ComputePool,
  input: {
    readonly Q: Float32Array;
    readonly T: Float32Array;
    readonly targets: number;
    readonly k: number;
    readonly K: number;
    readonly queries: Int32Array;
    readonly exclude?: Csr;
    readonly mask?: Uint8Array;
    readonly selfExclude?: boolean;
  },
): Promise<TopLists> {
  const n = input.queries.length;
  const outIdx = pool.int32(n * input.K);
  const outScore = pool.float32(n * input.K);
  const args = {
    Q: pool.share(input.Q),
    T: pool.share(input.T),
    targets: input.targets,
    k: input.k,
    K: input.K,
    queryRows: pool.share(input.queries),
    excludePtr: input.exclude ? pool.share(input.exclude.indptr) : EMPTY_I32,
    excludeIdx: input.exclude ? pool.share(input.exclude.indices) : EMPTY_I32,
    mask: input.mask ? pool.share(input.mask) : EMPTY_U8,
    selfExclude: input.selfExclude ? 1 : 0,
    outIdx,
    outScore,
  };
  if (pool.simd && input.k % 4 === 0) {
    const scratch = pool.float32((pool.size + 1) * Math.max(1, input.targets));
    await pool.run("topkSimd", { ...args, scratch }, topKChunks(n));
  } else {
    await pool.run("topk", args, topKChunks(n));
  }
  return { K: input.K, queries: input.queries, indices: outIdx, scores: outScore };
}

/** Rows scaled to unit length (zero rows stay zero): dot products become cosines. */
export function normalizeRows(F: Float32Array, rows: number, k: number): Float32Array {
  const out = new Float32Array(rows * k);
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let f = 0; f < k; f++) norm += (F[r * k + f] as number) ** 2;
    if (norm === 0) continue;
    const inv = 1 / Math.sqrt(norm);
    for (let f = 0; f < k; f++) out[r * k + f] = (F[r * k + f] as number) * inv;
  }
  return out;
}
