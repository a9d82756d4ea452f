/**
 * Cache- and register-blocked kernels for the blocked factorisations (row-major Float64Arrays with an
 * offset and a row stride, as LAPACK passes a sub-matrix). V8 does not vectorise, so the speed comes from
 * keeping a 4×4 tile of C in locals (16 multiply-adds per 8 loads) and from packing the operands so the
 * inner loop reads contiguous memory. The loop order is fixed: results are bit-reproducible.
 */

/** A sub-matrix view: element (i, j) is data[offset + i * stride + j]. */
export interface Block {
  data: Float64Array;
  offset: number;
  stride: number;
}

/**
 * C ← C − A·B, with A m×k, B k×n and C m×n. Each entry of C has the products of its k terms summed first
 * (in p order) and subtracted once, as a GEMM does.
 */
export function gemmSubtract(m: number, n: number, k: number, a: Block, b: Block, c: Block): void {
  if (m <= 0 || n <= 0 || k <= 0) return;
  const m4 = m & ~3,
    n4 = n & ~3;
  const pa = new Float64Array(4 * k);
  const pb = packColumnStrips(b, k, n4);
  const A = a.data,
    C = c.data,
    lda = a.stride,
    ldc = c.stride;
  for (let i = 0; i < m4; i += 4) {
    // Four rows of A interleaved by p: pa[4p + r] = A[i + r][p].
    const s0 = a.offset + i * lda;
    for (let p = 0; p < k; p++) {
      const s = s0 + p,
        d = 4 * p;
      pa[d] = A[s]!;
      pa[d + 1] = A[s + lda]!;
      pa[d + 2] = A[s + 2 * lda]!;
      pa[d + 3] = A[s + 3 * lda]!;
    }
    for (let t = 0; t < n4; t += 4) tile4x4(pa, pb, t * k, 4 * k, C, c.offset + i * ldc + t, ldc);
  }
  edge(m4, m, 0, n, k, a, b, c);
  edge(0, m4, n4, n, k, a, b, c);
}

/** B's first n4 columns in strips of four, each strip interleaved by p: out[t·k + 4p + j] = B[p][t + j]. */
function packColumnStrips(b: Block, k: number, n4: number): Float64Array {
  const out = new Float64Array(n4 * k);
  const B = b.data,
    ldb = b.stride;
  for (let t = 0; t < n4; t += 4) {
    const base = t * k;
    for (let p = 0; p < k; p++) {
      const s = b.offset + p * ldb + t,
        d = base + 4 * p;
      out[d] = B[s]!;
      out[d + 1] = B[s + 1]!;
      out[d + 2] = B[s + 2]!;
      out[d + 3] = B[s + 3]!;
    }
  }
  return out;
}

/** One 4×4 tile: C[o..] −= (packed 4 rows of A) · (packed strip of B starting at q0). */
function tile4x4(pa: Float64Array, pb: Float64Array, q0: number, len: number, C: Float64Array, o: number, ldc: number): void {
  let c00 = 0,
    c01 = 0,
    c02 = 0,
    c03 = 0,
    c10 = 0,
    c11 = 0,
    c12 = 0,
    c13 = 0,
    c20 = 0,
    c21 = 0,
    c22 = 0,
    c23 = 0,
    c30 = 0,
    c31 = 0,
    c32 = 0,
    c33 = 0;
  for (let p = 0, q = q0; p < len; p += 4, q += 4) {
    const a0 = pa[p]!,
      a1 = pa[p + 1]!,
      a2 = pa[p + 2]!,
      a3 = pa[p + 3]!;
    let x = pb[q]!;
    c00 += a0 * x;
    c10 += a1 * x;
    c20 += a2 * x;
    c30 += a3 * x;
    x = pb[q + 1]!;
    c01 += a0 * x;
    c11 += a1 * x;
    c21 += a2 * x;
    c31 += a3 * x;
    x = pb[q + 2]!;
    c02 += a0 * x;
    c12 += a1 * x;
    c22 += a2 * x;
    c32 += a3 * x;
    x = pb[q + 3]!;
    c03 += a0 * x;
    c13 += a1 * x;
    c23 += a2 * x;
    c33 += a3 * x;
  }
  C[o] = C[o]! - c00;
  C[o + 1] = C[o + 1]! - c01;
  C[o + 2] = C[o + 2]! - c02;
  C[o + 3] = C[o + 3]! - c03;
  o += ldc;
  C[o] = C[o]! - c10;
  C[o + 1] = C[o + 1]! - c11;
  C[o + 2] = C[o + 2]! - c12;
  C[o + 3] = C[o + 3]! - c13;
  o += ldc;
  C[o] = C[o]! - c20;
  C[o + 1] = C[o + 1]! - c21;
  C[o + 2] = C[o + 2]! - c22;
  C[o + 3] = C[o + 3]! - c23;
  o += ldc;
  C[o] = C[o]! - c30;
  C[o + 1] = C[o + 1]! - c31;
  C[o + 2] = C[o + 2]! - c32;
  C[o + 3] = C[o + 3]! - c33;
}

/** The rows i0..i1 × columns j0..j1 of C that do not fill a 4×4 tile, summed in the same p order. */
function edge(i0: number, i1: number, j0: number, j1: number, k: number, a: Block, b: Block, c: Block): void {
  for (let i = i0; i < i1; i++) {
    const ra = a.offset + i * a.stride,
      rc = c.offset + i * c.stride;
    for (let j = j0; j < j1; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += a.data[ra + p]! * b.data[b.offset + p * b.stride + j]!;
      c.data[rc + j] = c.data[rc + j]! - s;
    }
  }
}
