import type { KernelContext } from "../parallel/context.ts";

/**
 * The numeric kernels of implicit-feedback ALS (Hu, Koren and Volinsky 2008) with the conjugate
 * gradient solver of Takács, Pilászy and Tikk (2011), on typed arrays. Each kernel works on one
 * fixed chunk of rows, so the same code runs in the main thread or in worker threads, and the result
 * does not depend on how many threads share the chunks.
 */

/** Rows per chunk of a Gram matrix. Fixed (not per worker) so partial sums add up in one order. */
const GRAM_CHUNK = 2048;
/** Rows per chunk of a solve. Small enough to balance heavy and light rows across workers. */
const SOLVE_CHUNK = 128;

export interface GramArgs {
  /** Factors, `rows` x `k`, row-major. */
  readonly F: Float32Array;
  readonly rows: number;
  readonly k: number;
  /** Partial Gram matrices, one k x k block per chunk (upper triangle filled). */
  readonly out: Float64Array;
}

export const gramChunks = (rows: number) => Math.ceil(rows / GRAM_CHUNK);

/** The upper triangle of F_cᵀ F_c for the rows of chunk c, into `out`'s block c. */
export function gramChunk(a: GramArgs, chunk: number): void {
  const { F, rows, k } = a;
  const start = chunk * GRAM_CHUNK;
  const end = Math.min(rows, start + GRAM_CHUNK);
  const acc = new Float64Array(k * k);
  const y = new Float64Array(k);
  for (let r = start; r < end; r++) {
    const off = r * k;
    for (let f = 0; f < k; f++) y[f] = F[off + f] as number;
    for (let i = 0; i < k; i++) {
      const yi = y[i] as number;
      if (yi === 0) continue;
      const row = i * k;
      for (let j = i; j < k; j++) acc[row + j] = (acc[row + j] as number) + yi * (y[j] as number);
    }
  }
  a.out.set(acc, chunk * k * k);
}

/**
 * Sums the chunks' partial Gram matrices in chunk order, mirrors the upper triangle and adds
 * `regularization` on the diagonal: G = FᵀF + λI.
 */
export function reduceGram(
  partials: Float64Array,
  chunks: number,
  k: number,
  regularization: number,
): Float64Array {
  const G = new Float64Array(k * k);
  for (let c = 0; c < chunks; c++) {
    const base = c * k * k;
    for (let i = 0; i < k; i++) {
      for (let j = i; j < k; j++)
        G[i * k + j] = (G[i * k + j] as number) + (partials[base + i * k + j] as number);
    }
  }
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) G[j * k + i] = G[i * k + j] as number;
    G[i * k + i] = (G[i * k + i] as number) + regularization;
  }
  return G;
}

export interface SolveArgs {
  /** The factors being solved, `rows` x `k` (read as the warm start, then overwritten). */
  readonly X: Float32Array;
  /** The other side's factors, fixed during the solve. */
  readonly Y: Float32Array;
  /** YᵀY + λI, k x k. */
  readonly G: Float64Array;
  /** The interactions of each row of X with rows of Y; `conf` holds c - 1 = alpha * weight. */
  readonly indptr: Int32Array;
  readonly indices: Int32Array;
  readonly conf: Float32Array;
  readonly rows: number;
  readonly k: number;
  readonly cgSteps: number;
}

export const solveChunks = (rows: number) => Math.ceil(rows / SOLVE_CHUNK);

/** out = G v (k x k times k), four partial sums per row for instruction-level parallelism. */
function matvec(G: Float64Array, v: Float64Array, out: Float64Array, k: number): void {
  const k4 = k - (k % 4);
  for (let i = 0; i < k; i++) {
    const row = i * k;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j < k4; j += 4) {
      s0 += (G[row + j] as number) * (v[j] as number);
      s1 += (G[row + j + 1] as number) * (v[j + 1] as number);
      s2 += (G[row + j + 2] as number) * (v[j + 2] as number);
      s3 += (G[row + j + 3] as number) * (v[j + 3] as number);
    }
    for (; j < k; j++) s0 += (G[row + j] as number) * (v[j] as number);
    out[i] = s0 + s1 + s2 + s3;
  }
}

/** y_off · v for a factor row of Y. */
function dotRow(Y: Float32Array, off: number, v: Float64Array, k: number): number {
  const k4 = k - (k % 4);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let f = 0;
  for (; f < k4; f += 4) {
    s0 += (Y[off + f] as number) * (v[f] as number);
    s1 += (Y[off + f + 1] as number) * (v[f + 1] as number);
    s2 += (Y[off + f + 2] as number) * (v[f + 2] as number);
    s3 += (Y[off + f + 3] as number) * (v[f + 3] as number);
  }
  for (; f < k; f++) s0 += (Y[off + f] as number) * (v[f] as number);
  return s0 + s1 + s2 + s3;
}

/** out += s * y_off. */
function axpyRow(Y: Float32Array, off: number, s: number, out: Float64Array, k: number): void {
  for (let f = 0; f < k; f++) out[f] = (out[f] as number) + s * (Y[off + f] as number);
}

const dot = (a: Float64Array, b: Float64Array, k: number) => {
  let s = 0;
  for (let f = 0; f < k; f++) s += (a[f] as number) * (b[f] as number);
  return s;
};

/**
 * Solves the rows of chunk c: for each row u, a few conjugate-gradient steps on
 *   (YᵀY + λI + Σ_i (c_ui - 1) y_i y_iᵀ) x_u = Σ_i c_ui y_i
 * warm-started from the current x_u. The matrix is never formed: A p = G p + Σ_i (c_ui - 1)(y_i·p) y_i
 * costs k² + 2k·n_u, not k²·n_u. A row without interactions gets x_u = 0 (the exact minimiser).
 */
export function solveChunk(a: SolveArgs, chunk: number): void {
  const { X, Y, G, indptr, indices, conf, rows, k, cgSteps } = a;
  const start = chunk * SOLVE_CHUNK;
  const end = Math.min(rows, start + SOLVE_CHUNK);
  const x = new Float64Array(k);
  const r = new Float64Array(k);
  const p = new Float64Array(k);
  const Ap = new Float64Array(k);
  for (let u = start; u < end; u++) {
    const lo = indptr[u] as number;
    const hi = indptr[u + 1] as number;
    const off = u * k;
    if (lo === hi) {
      X.fill(0, off, off + k);
      continue;
    }
    for (let f = 0; f < k; f++) x[f] = X[off + f] as number;
    // 1. Residual r = b - A x = -G x + Σ_i (c_ui - (c_ui - 1)(y_i·x)) y_i.
    matvec(G, x, r, k);
    for (let f = 0; f < k; f++) r[f] = -(r[f] as number);
    for (let q = lo; q < hi; q++) {
      const yo = (indices[q] as number) * k;
      const cm1 = conf[q] as number;
      axpyRow(Y, yo, 1 + cm1 - cm1 * dotRow(Y, yo, x, k), r, k);
    }
    p.set(r);
    let rsold = dot(r, r, k);
    // 2. Conjugate-gradient steps from the warm start.
    for (let step = 0; step < cgSteps && rsold > 1e-20; step++) {
      matvec(G, p, Ap, k);
      for (let q = lo; q < hi; q++) {
        const yo = (indices[q] as number) * k;
        axpyRow(Y, yo, (conf[q] as number) * dotRow(Y, yo, p, k), Ap, k);
      }
      const pAp = dot(p, Ap, k);
      if (!(pAp > 0)) break;
      const alpha = rsold / pAp;
      for (let f = 0; f < k; f++) {
        x[f] = (x[f] as number) + alpha * (p[f] as number);
        r[f] = (r[f] as number) - alpha * (Ap[f] as number);
      }
      const rsnew = dot(r, r, k);
      const beta = rsnew / rsold;
      for (let f = 0; f < k; f++) p[f] = (r[f] as number) + beta * (p[f] as number);
      rsold = rsnew;
    }
    for (let f = 0; f < k; f++) X[off + f] = x[f] as number;
  }
}

export interface SolveSimdArgs extends Omit<SolveArgs, "G"> {
  /** YᵀY + λI, k x k, in single precision. */
  readonly G: Float32Array;
  /** Four k-vectors (x, r, p, Ap) per thread slot. */
  readonly scratch: Float32Array;
}

/**
 * `solveChunk` with the k x k product and the sparse terms in WebAssembly SIMD (single precision).
 * The conjugate-gradient recurrences stay here; every vector lives in the kernels' shared memory.
 */
export function solveChunkSimd(a: SolveSimdArgs, chunk: number, ctx: KernelContext): void {
  const K = ctx.kernels;
  if (!K) throw new Error("solveChunkSimd needs the SIMD kernels");
  const { X, Y, G, indptr, indices, conf, rows, k, cgSteps, scratch } = a;
  const start = chunk * SOLVE_CHUNK;
  const end = Math.min(rows, start + SOLVE_CHUNK);
  const base = ctx.slot * 4 * k;
  const x = scratch.subarray(base, base + k);
  const r = scratch.subarray(base + k, base + 2 * k);
  const p = scratch.subarray(base + 2 * k, base + 3 * k);
  const Ap = scratch.subarray(base + 3 * k, base + 4 * k);
  const [xo, ro, po, apo] = [x.byteOffset, r.byteOffset, p.byteOffset, Ap.byteOffset];
  const [go, yo, io, co] = [G.byteOffset, Y.byteOffset, indices.byteOffset, conf.byteOffset];
  const dot32 = (u: Float32Array, v: Float32Array) => {
    let s = 0;
    for (let f = 0; f < k; f++) s += (u[f] as number) * (v[f] as number);
    return s;
  };
  for (let u = start; u < end; u++) {
    const lo = indptr[u] as number;
    const hi = indptr[u + 1] as number;
    const off = u * k;
    if (lo === hi) {
      X.fill(0, off, off + k);
      continue;
    }
    x.set(X.subarray(off, off + k));
    // 1. Residual r = b - A x = -G x + Σ_i (c_ui - (c_ui - 1)(y_i·x)) y_i.
    K.matvec(go, xo, ro, k);
    for (let f = 0; f < k; f++) r[f] = -(r[f] as number);
    K.accum(yo, io, co, lo, hi, xo, ro, k, 1);
    p.set(r);
    let rsold = dot32(r, r);
    // 2. Conjugate-gradient steps from the warm start.
    for (let step = 0; step < cgSteps && rsold > 1e-20; step++) {
      K.matvec(go, po, apo, k);
      K.accum(yo, io, co, lo, hi, po, apo, k, 0);
      const pAp = dot32(p, Ap);
      if (!(pAp > 0)) break;
      const alpha = rsold / pAp;
      for (let f = 0; f < k; f++) {
        x[f] = (x[f] as number) + alpha * (p[f] as number);
        r[f] = (r[f] as number) - alpha * (Ap[f] as number);
      }
      const rsnew = dot32(r, r);
      const beta = rsnew / rsold;
      for (let f = 0; f < k; f++) p[f] = (r[f] as number) + beta * (p[f] as number);
      rsold = rsnew;
    }
    X.set(x, off);
  }
}
