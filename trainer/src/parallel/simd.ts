/**
 * WebAssembly SIMD versions of the hot loops of training and ranking, on f32x4 vectors. Node has no
 * WebAssembly assembler, so the module is encoded here from a few opcodes (about 1 KB) at start-up;
 * `simd.test.ts` checks each function against the plain TypeScript kernels.
 *
 * All pointers are byte offsets into one shared `WebAssembly.Memory` (see `pool.ts`), which every
 * worker thread imports, so the factor matrices are shared without copies. `k` must be a multiple of
 * 4. Arithmetic is IEEE single precision without fused multiply-add, in a fixed order, so results are
 * the same on every machine and thread.
 */

/** The exported functions. */
export interface SimdKernels {
  /** out[i] = Σ_j G[i·k + j] · v[j] for i < k (G k x k, row-major). k a multiple of 4. */
  matvec(G: number, v: number, out: number, k: number): void;
  /**
   * For each interaction q in [lo, hi): y = Y row indices[q], d = y · v, c = conf[q];
   * out += (residual ? 1 + c - c·d : c·d) · y. The two sparse terms of implicit ALS's CG.
   */
  accum(
    Y: number,
    indices: number,
    conf: number,
    lo: number,
    hi: number,
    v: number,
    out: number,
    k: number,
    residual: number,
  ): void;
  /** out[t] = q · T row t for t < n. */
  dots(q: number, T: number, n: number, k: number, out: number): void;
}

// --- A minimal WebAssembly binary encoder --------------------------------------------------------

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};

const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};

const str = (s: string) => [...uleb(s.length), ...Buffer.from(s, "utf8")];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;

/** Instructions used below. `memarg` alignments are hints only. */
const op = {
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (n: number) => [0x41, ...sleb(n)],
  f32: (x: number) => [0x43, ...new Uint8Array(Float32Array.of(x).buffer)],
  add: [0x6a],
  mul: [0x6c],
  ltS: [0x48],
  geS: [0x4e],
  f32Add: [0x92],
  f32Sub: [0x93],
  f32Mul: [0x94],
  select: [0x1b],
  i32Load: [0x28, 2, 0],
  f32Load: [0x2a, 2, 0],
  f32Store: [0x38, 2, 0],
  v128Load: [0xfd, 0x00, 4, 0],
  v128Store: [0xfd, 0x0b, 4, 0],
  zero: [0xfd, 0x0c, ...new Array<number>(16).fill(0)],
  splat: [0xfd, 0x13],
  lane: (i: number) => [0xfd, 0x1f, i],
  vAdd: [0xfd, ...uleb(228)],
  vMul: [0xfd, ...uleb(230)],
  loop: [0x03, 0x40],
  block: [0x02, 0x40],
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  end: [0x0b],
};

/** Horizontal sum of the v128 in local `v`: (l0 + l1) + (l2 + l3). */
const hsum = (v: number) => [
  ...op.get(v),
  ...op.lane(0),
  ...op.get(v),
  ...op.lane(1),
  ...op.f32Add,
  ...op.get(v),
  ...op.lane(2),
  ...op.get(v),
  ...op.lane(3),
  ...op.f32Add,
  ...op.f32Add,
];

/** `kb = k · 4`: the byte length of a row of `k` f32s (locals). */
const rowBytes = (k: number, kb: number) => [...op.get(k), ...op.i32(4), ...op.mul, ...op.set(kb)];

/** The address `base + i` (locals; `i` in bytes). */
const at = (base: number, i: number) => [...op.get(base), ...op.get(i), ...op.add];

/** The address of the 4-byte element `i` of the array at `base` (locals): `base + 4i`. */
const element = (base: number, i: number) => [
  ...op.get(base),
  ...op.get(i),
  ...op.i32(4),
  ...op.mul,
  ...op.add,
];

/** Closes a loop: `x += step`, and round again while `x < limit` (locals, signed). */
const repeatWhileBelow = (x: number, step: number, limit: number) => [
  ...op.get(x),
  ...op.i32(step),
  ...op.add,
  ...op.tee(x),
  ...op.get(limit),
  ...op.ltS,
  ...op.brIf(0),
  ...op.end,
];

/**
 * Accumulates the dot product of two f32 rows at addresses `a` and `b` (locals), `kb` bytes long (a
 * multiple of 16), four lanes at a time into the v128 local `acc` (`j` counts bytes); `hsum(acc)`
 * then gives the sum.
 */
const dot = (a: number, b: number, acc: number, j: number, kb: number) => [
  ...op.zero,
  ...op.set(acc),
  ...op.i32(0),
  ...op.set(j),
  ...op.loop,
  ...op.get(acc),
  ...at(a, j),
  ...op.v128Load,
  ...at(b, j),
  ...op.v128Load,
  ...op.vMul,
  ...op.vAdd,
  ...op.set(acc),
  ...repeatWhileBelow(j, 16, kb),
];

/** A function body: locals grouped by type, then the code. */
const body = (locals: [number, number][], code: number[]) => {
  const inner = [...vec(locals.map(([n, t]) => [...uleb(n), t])), ...code, ...op.end];
  return [...uleb(inner.length), ...inner];
};

// matvec(G, v, out, k): four rows at a time share each load of v. i and j count bytes.
// params 0 G, 1 v, 2 out, 3 k; locals 4 i, 5 j, 6 kb (k bytes), 7 row, 8..11 acc0..3, 12 vv
function matvecBody(): number[] {
  const [G, v, out, k, i, j, kb, row, vv] = [0, 1, 2, 3, 4, 5, 6, 7, 12];
  const acc = [8, 9, 10, 11];
  const code = [
    ...rowBytes(k, kb),
    ...op.get(G),
    ...op.set(row),
    ...op.i32(0),
    ...op.set(i),
    ...op.loop, // rows, four at a time
    ...acc.flatMap((a) => [...op.zero, ...op.set(a)]),
    ...op.i32(0),
    ...op.set(j),
    ...op.loop, // columns, four at a time (j in bytes)
    ...at(v, j),
    ...op.v128Load,
    ...op.set(vv),
    ...acc.flatMap((a, r) => [
      ...op.get(a),
      ...at(row, j),
      ...(r > 0 ? [...op.get(kb), ...op.i32(r), ...op.mul, ...op.add] : []),
      ...op.v128Load,
      ...op.get(vv),
      ...op.vMul,
      ...op.vAdd,
      ...op.set(a),
    ]),
    ...repeatWhileBelow(j, 16, kb),
    // out[row + r] = hsum(acc_r): f32.store at out + i with a static offset of 4r bytes.
    ...acc.flatMap((a, r) => [...at(out, i), ...hsum(a), 0x38, 2, ...uleb(4 * r)]),
    // row += 4 rows
    ...op.get(row),
    ...op.get(kb),
    ...op.i32(4),
    ...op.mul,
    ...op.add,
    ...op.set(row),
    ...repeatWhileBelow(i, 16, kb),
  ];
  return body(
    [
      [4, I32],
      [4, V128],
      [1, V128],
    ],
    code,
  );
}

// accum(Y, indices, conf, lo, hi, v, out, k, residual)
// params 0 Y, 1 indices, 2 conf, 3 lo, 4 hi, 5 v, 6 out, 7 k, 8 residual
// locals 9 q, 10 yp, 11 j, 12 kb, 13 c, 14 d, 15 acc, 16 cv
function accumBody(): number[] {
  const [Y, indices, conf, lo, hi, v, out, k, residual] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [q, yp, j, kb, c, d, acc, cv] = [9, 10, 11, 12, 13, 14, 15, 16];
  const code = [
    ...rowBytes(k, kb),
    ...op.get(lo),
    ...op.set(q),
    ...op.block,
    ...op.get(q),
    ...op.get(hi),
    ...op.geS,
    ...op.brIf(0),
    ...op.loop, // interactions
    // yp = Y + indices[q] * kb
    ...op.get(Y),
    ...element(indices, q),
    ...op.i32Load,
    ...op.get(kb),
    ...op.mul,
    ...op.add,
    ...op.set(yp),
    // c = conf[q]
    ...element(conf, q),
    ...op.f32Load,
    ...op.set(c),
    // d = y · v
    ...dot(yp, v, acc, j, kb),
    ...hsum(acc),
    ...op.set(d),
    // coef = residual ? 1 + c - c·d : c·d
    ...op.f32(1),
    ...op.get(c),
    ...op.f32Add,
    ...op.get(c),
    ...op.get(d),
    ...op.f32Mul,
    ...op.f32Sub,
    ...op.get(c),
    ...op.get(d),
    ...op.f32Mul,
    ...op.get(residual),
    ...op.select,
    ...op.splat,
    ...op.set(cv),
    // out += coef · y
    ...op.i32(0),
    ...op.set(j),
    ...op.loop,
    ...at(out, j),
    ...at(out, j),
    ...op.v128Load,
    ...op.get(cv),
    ...at(yp, j),
    ...op.v128Load,
    ...op.vMul,
    ...op.vAdd,
    ...op.v128Store,
    ...repeatWhileBelow(j, 16, kb),
    ...repeatWhileBelow(q, 1, hi), // the interactions' loop
    ...op.end, // block
  ];
  return body(
    [
      [4, I32],
      [2, F32],
      [2, V128],
    ],
    code,
  );
}

// dots(q, T, n, k, out)
// params 0 q, 1 T, 2 n, 3 k, 4 out; locals 5 t, 6 j, 7 kb, 8 tp, 9 acc
function dotsBody(): number[] {
  const [qp, T, n, k, out] = [0, 1, 2, 3, 4];
  const [t, j, kb, tp, acc] = [5, 6, 7, 8, 9];
  const code = [
    ...rowBytes(k, kb),
    ...op.get(T),
    ...op.set(tp),
    ...op.i32(0),
    ...op.set(t),
    ...op.block,
    ...op.get(n),
    ...op.i32(0),
    ...[0x4c], // i32.le_s
    ...op.brIf(0),
    ...op.loop,
    ...dot(tp, qp, acc, j, kb),
    ...element(out, t),
    ...hsum(acc),
    ...op.f32Store,
    ...op.get(tp),
    ...op.get(kb),
    ...op.add,
    ...op.set(tp),
    ...repeatWhileBelow(t, 1, n),
    ...op.end, // block
  ];
  return body(
    [
      [4, I32],
      [1, V128],
    ],
    code,
  );
}

/** Pages of 64 KiB a kernel memory may grow to (2 GiB, so byte offsets stay positive i32s; address space only, committed as used). */
export const MAX_PAGES = 32_768;

/** The encoded module: imports `env.memory` (shared), exports matvec, accum and dots. */
export function kernelModuleBytes(): Uint8Array {
  const types = section(
    1,
    vec([
      [0x60, ...vec([[I32], [I32], [I32], [I32]]), 0],
      [0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32], [I32], [I32], [I32]]), 0],
      [0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0],
    ]),
  );
  const imports = section(
    2,
    vec([[...str("env"), ...str("memory"), 0x02, 0x03, ...uleb(1), ...uleb(MAX_PAGES)]]),
  );
  const functions = section(3, vec([[0], [1], [2]]));
  const exports = section(
    7,
    vec([
      [...str("matvec"), 0x00, 0],
      [...str("accum"), 0x00, 1],
      [...str("dots"), 0x00, 2],
    ]),
  );
  const code = section(10, [...uleb(3), ...matvecBody(), ...accumBody(), ...dotsBody()]);
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...types,
    ...imports,
    ...functions,
    ...exports,
    ...code,
  ]);
}

let compiled: WebAssembly.Module | null = null;

/** The compiled module (compiled once per thread). */
function kernelModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(kernelModuleBytes() as Uint8Array<ArrayBuffer>);
  return compiled;
}

/** A shared memory for kernels, `pages` of 64 KiB to start with. */
export const createKernelMemory = (pages = 16) =>
  new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES, shared: true });

/** The kernels bound to a memory. */
export function instantiateKernels(memory: WebAssembly.Memory): SimdKernels {
  const instance = new WebAssembly.Instance(kernelModule(), { env: { memory } });
  return instance.exports as unknown as SimdKernels;
}

/** Whether this runtime runs WebAssembly SIMD with shared memory (Node 24 does). */
export function simdAvailable(): boolean {
  try {
    kernelModule();
    createKernelMemory(1);
    return true;
  } catch {
    return false;
  }
}
