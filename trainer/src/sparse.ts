/**
 * A sparse matrix in compressed sparse row form: row r holds columns `indices[indptr[r]..indptr[r+1]]`
 * with `values` at the same positions, columns ascending within a row.
 */
export interface Csr {
  readonly rows: number;
  readonly cols: number;
  readonly indptr: Int32Array;
  readonly indices: Int32Array;
  readonly values: Float32Array;
}

/**
 * Builds a CSR matrix from (row, col, value) triplets in any order. Columns are sorted within each
 * row, so the result (and every floating-point sum over a row) does not depend on the input order.
 * Repeated (row, col) pairs are kept as they are; callers pass unique pairs.
 */
export function csrFromTriplets(
  rows: number,
  cols: number,
  rowOf: Int32Array,
  colOf: Int32Array,
  valueAt: Float32Array,
): Csr {
  const nnz = rowOf.length;
  const indptr = new Int32Array(rows + 1);
  for (let q = 0; q < nnz; q++)
    indptr[(rowOf[q] as number) + 1] = (indptr[(rowOf[q] as number) + 1] as number) + 1;
  for (let r = 0; r < rows; r++) indptr[r + 1] = (indptr[r + 1] as number) + (indptr[r] as number);
  const fill = indptr.slice(0, rows);
  const indices = new Int32Array(nnz);
  const values = new Float32Array(nnz);
  for (let q = 0; q < nnz; q++) {
    const r = rowOf[q] as number;
    const at = fill[r] as number;
    fill[r] = at + 1;
    indices[at] = colOf[q] as number;
    values[at] = valueAt[q] as number;
  }
  sortRows(indptr, indices, values);
  return { rows, cols, indptr, indices, values };
}

/** Sorts each row's columns ascending (insertion sort: rows are short and often nearly sorted). */
function sortRows(indptr: Int32Array, indices: Int32Array, values: Float32Array): void {
  for (let r = 0; r + 1 < indptr.length; r++) {
    const lo = indptr[r] as number;
    const hi = indptr[r + 1] as number;
    for (let a = lo + 1; a < hi; a++) {
      const c = indices[a] as number;
      const v = values[a] as number;
      let b = a - 1;
      while (b >= lo && (indices[b] as number) > c) {
        indices[b + 1] = indices[b] as number;
        values[b + 1] = values[b] as number;
        b--;
      }
      indices[b + 1] = c;
      values[b + 1] = v;
    }
  }
}

/** The transpose (columns become rows), columns ascending within each row. */
export function transpose(m: Csr): Csr {
  const nnz = m.indices.length;
  const indptr = new Int32Array(m.cols + 1);
  for (let q = 0; q < nnz; q++)
    indptr[(m.indices[q] as number) + 1] = (indptr[(m.indices[q] as number) + 1] as number) + 1;
  for (let c = 0; c < m.cols; c++) indptr[c + 1] = (indptr[c + 1] as number) + (indptr[c] as number);
  const fill = indptr.slice(0, m.cols);
  const indices = new Int32Array(nnz);
  const values = new Float32Array(nnz);
  // Rows are visited in ascending order, so each transposed row comes out sorted.
  for (let r = 0; r < m.rows; r++) {
    for (let q = m.indptr[r] as number; q < (m.indptr[r + 1] as number); q++) {
      const c = m.indices[q] as number;
      const at = fill[c] as number;
      fill[c] = at + 1;
      indices[at] = r;
      values[at] = m.values[q] as number;
    }
  }
  return { rows: m.cols, cols: m.rows, indptr, indices, values };
}
