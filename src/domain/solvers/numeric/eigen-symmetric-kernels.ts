/**
 * The inner loops of eigen-symmetric (`eigen-symmetric.ts`), row-oriented for row-major storage. The reduction
 * keeps the order of every sum and the expression of every element of EISPACK/JAMA's tred2, so the tridiagonal
 * is its bits; only loads, stores and loop overhead go. The back transform applies tred2's reflectors to the
 * tridiagonal's eigenvectors (test/unit/solvers/eigen-symmetric-kernel.test.ts).
 */

/**
 * out[0..m−1] = A·u, A the symmetric matrix held in the lower triangle of rows 0..m−1 of v. tred2 takes
 * out[j] = (Σ_{k<j} A[j][k]·u_k + A[j][j]·u_j) + Σ_{k>j} A[k][j]·u_k, the second sum by k ascending. Row k of
 * the lower triangle holds A[k][0..k]: it completes out[k]'s first part and adds to out[j<k]'s second. Rows go
 * in pairs (k, k+1) so out[j] takes both rows' terms in one load and store, still row k's first.
 */
export function symmetricProduct(v: Float64Array, n: number, m: number, u: Float64Array, out: Float64Array): void {
  let k = 0;
  for (; k + 1 < m; k += 2) {
    const r0 = k * n,
      r1 = r0 + n,
      u0 = u[k]!,
      u1 = u[k + 1]!;
    let t0 = 0,
      t1 = 0;
    for (let j = 0; j < k; j++) {
      const x0 = v[r0 + j]!,
        x1 = v[r1 + j]!,
        uj = u[j]!;
      t0 += x0 * uj;
      t1 += x1 * uj;
      out[j] = out[j]! + x0 * u0 + x1 * u1;
    }
    out[k] = t0 + v[r0 + k]! * u0;
    const x = v[r1 + k]!;
    t1 += x * u0;
    out[k] = out[k]! + x * u1;
    out[k + 1] = t1 + v[r1 + k + 1]! * u1;
  }
  for (; k < m; k++) {
    const ro = k * n,
      uk = u[k]!;
    let t = 0;
    for (let j = 0; j < k; j++) {
      const x = v[ro + j]!;
      t += x * u[j]!;
      out[j] = out[j]! + x * uk;
    }
    out[k] = t + v[ro + k]! * uk;
  }
}

/** A ← A − d·qᵀ − q·dᵀ on the lower triangle of row k alone (elementwise, as in `rank2Update`). */
export function rank2UpdateRow(v: Float64Array, n: number, k: number, d: Float64Array, q: Float64Array): void {
  const ro = k * n,
    qk = q[k]!,
    dk = d[k]!;
  for (let j = 0; j <= k; j++) v[ro + j] = v[ro + j]! - (d[j]! * qk + q[j]! * dk);
}

/** A ← A − d·qᵀ − q·dᵀ on the lower triangle of rows 0..m−1, two rows per pass sharing the loads of d_j and q_j. */
export function rank2Update(v: Float64Array, n: number, m: number, d: Float64Array, q: Float64Array): void {
  let k = 0;
  for (; k + 1 < m; k += 2) {
    const r0 = k * n,
      r1 = r0 + n,
      q0 = q[k]!,
      d0 = d[k]!,
      q1 = q[k + 1]!,
      d1 = d[k + 1]!;
    for (let j = 0; j <= k; j++) {
      const dj = d[j]!,
        qj = q[j]!;
      v[r0 + j] = v[r0 + j]! - (dj * q0 + qj * d0);
      v[r1 + j] = v[r1 + j]! - (dj * q1 + qj * d1);
    }
    v[r1 + k + 1] = v[r1 + k + 1]! - (d1 * q1 + q1 * d1);
  }
  for (; k < m; k++) rank2UpdateRow(v, n, k, d, q);
}

/**
 * `rank2Update` of rows 0..m−1 and then `symmetricProduct` of the updated rows with u, in one pass: each element
 * is loaded and stored once instead of loaded again for the product. Rows pair as in both, every element and
 * every sum is formed as there, so the results are their bits.
 */
export function rank2UpdateAndProduct(v: Float64Array, n: number, m: number, d: Float64Array, q: Float64Array, u: Float64Array, out: Float64Array): void {
  let k = 0;
  for (; k + 1 < m; k += 2) {
    const r0 = k * n,
      r1 = r0 + n,
      q0 = q[k]!,
      d0 = d[k]!,
      q1 = q[k + 1]!,
      d1 = d[k + 1]!,
      u0 = u[k]!,
      u1 = u[k + 1]!;
    let t0 = 0,
      t1 = 0;
    for (let j = 0; j < k; j++) {
      const dj = d[j]!,
        qj = q[j]!,
        uj = u[j]!;
      const x0 = v[r0 + j]! - (dj * q0 + qj * d0),
        x1 = v[r1 + j]! - (dj * q1 + qj * d1);
      v[r0 + j] = x0;
      v[r1 + j] = x1;
      t0 += x0 * uj;
      t1 += x1 * uj;
      out[j] = out[j]! + x0 * u0 + x1 * u1;
    }
    const dk = d[k]!,
      qk = q[k]!;
    const y0 = v[r0 + k]! - (dk * q0 + qk * d0),
      x = v[r1 + k]! - (dk * q1 + qk * d1),
      y1 = v[r1 + k + 1]! - (d1 * q1 + q1 * d1);
    v[r0 + k] = y0;
    v[r1 + k] = x;
    v[r1 + k + 1] = y1;
    out[k] = t0 + y0 * u0;
    t1 += x * u0;
    out[k] = out[k]! + x * u1;
    out[k + 1] = t1 + y1 * u1;
  }
  for (; k < m; k++) {
    rank2UpdateRow(v, n, k, d, q);
    const ro = k * n,
      uk = u[k]!;
    let t = 0;
    for (let j = 0; j < k; j++) {
      const x = v[ro + j]!;
      t += x * u[j]!;
      out[j] = out[j]! + x * uk;
    }
    out[k] = t + v[ro + k]! * uk;
  }
}

/**
 * Rows of `x` (each a vector in the tridiagonal basis) ← Q·row, Q = P_{n-1}···P_1 the tred2 reflectors:
 * P_i = I − u·uᵀ/h_i with u = row i of `u` (entries 0..i−1), h_i = h[i] (0: P_i = I). Reflectors go in pairs
 * (i, i+1): both dot products in one pass over the row, the second corrected by u_{i+1}·u_i, then one rank-2
 * update, so each element of x is loaded twice and stored once per two reflectors instead of per one; and
 * four rows at once share the loads of u and give independent sums to hide the adds' latency.
 */
export function backTransformRows(x: Float64Array, rows: number, n: number, u: Float64Array, h: Float64Array): void {
  const coupling = new Float64Array(n);
  for (let i = 1; i + 1 < n; i += 2) {
    const a = i * n,
      b = a + n;
    let c = 0;
    for (let k = 0; k < i; k++) c += u[a + k]! * u[b + k]!;
    coupling[i] = c;
  }
  let r = 0;
  for (; r + 3 < rows; r += 4) {
    const o0 = r * n,
      o1 = o0 + n,
      o2 = o1 + n,
      o3 = o2 + n;
    let i = 1;
    for (; i + 1 < n; i += 2) {
      const ha = h[i]!,
        hb = h[i + 1]!,
        a = i * n,
        b = a + n;
      let a0 = 0,
        a1 = 0,
        a2 = 0,
        a3 = 0,
        b0 = 0,
        b1 = 0,
        b2 = 0,
        b3 = 0;
      for (let k = 0; k < i; k++) {
        const ua = u[a + k]!,
          ub = u[b + k]!,
          x0 = x[o0 + k]!,
          x1 = x[o1 + k]!,
          x2 = x[o2 + k]!,
          x3 = x[o3 + k]!;
        a0 += ua * x0;
        a1 += ua * x1;
        a2 += ua * x2;
        a3 += ua * x3;
        b0 += ub * x0;
        b1 += ub * x1;
        b2 += ub * x2;
        b3 += ub * x3;
      }
      const ubi = u[b + i]!,
        c = coupling[i]!;
      if (ha === 0) a0 = a1 = a2 = a3 = 0;
      else {
        a0 /= ha;
        a1 /= ha;
        a2 /= ha;
        a3 /= ha;
      }
      if (hb === 0) b0 = b1 = b2 = b3 = 0;
      else {
        b0 = (b0 + ubi * x[o0 + i]! - a0 * c) / hb;
        b1 = (b1 + ubi * x[o1 + i]! - a1 * c) / hb;
        b2 = (b2 + ubi * x[o2 + i]! - a2 * c) / hb;
        b3 = (b3 + ubi * x[o3 + i]! - a3 * c) / hb;
      }
      for (let k = 0; k < i; k++) {
        const ua = u[a + k]!,
          ub = u[b + k]!;
        x[o0 + k] = x[o0 + k]! - (a0 * ua + b0 * ub);
        x[o1 + k] = x[o1 + k]! - (a1 * ua + b1 * ub);
        x[o2 + k] = x[o2 + k]! - (a2 * ua + b2 * ub);
        x[o3 + k] = x[o3 + k]! - (a3 * ua + b3 * ub);
      }
      x[o0 + i] = x[o0 + i]! - b0 * ubi;
      x[o1 + i] = x[o1 + i]! - b1 * ubi;
      x[o2 + i] = x[o2 + i]! - b2 * ubi;
      x[o3 + i] = x[o3 + i]! - b3 * ubi;
    }
    for (; i < n; i++) for (const o of [o0, o1, o2, o3]) reflectRow(x, o, u, i * n, i, h[i]!);
  }
  for (; r < rows; r++) for (let i = 1; i < n; i++) reflectRow(x, r * n, u, i * n, i, h[i]!);
}

/** One row at x[o..o+len−1] ← P·row, P = I − u·uᵀ/h with u at u[a..a+len−1]. */
function reflectRow(x: Float64Array, o: number, u: Float64Array, a: number, len: number, h: number): void {
  if (h === 0) return;
  let s = 0;
  for (let k = 0; k < len; k++) s += u[a + k]! * x[o + k]!;
  s /= h;
  for (let k = 0; k < len; k++) x[o + k] = x[o + k]! - s * u[a + k]!;
}

/**
 * Applies the rotations of one QL sweep, i = m-1 down to l, each mixing columns i and i+1 of z (LAPACK's
 * dlasr, variable pivot, backward). Column i+1 is final once rotation i is applied, so along a row the
 * running value of column i+1 stays in a local: one load and one store per rotation and row, against two of
 * each when every rotation sweeps whole columns. Same arithmetic per element, so the same bits.
 */
export function rotateColumns(z: Float64Array, n: number, l: number, m: number, cs: Float64Array, sn: Float64Array): void {
  let r = 0;
  // Four rows at a time: they share the loads of c and s, and four independent chains hide the latency of
  // the running value's multiply-subtract (measured 15% faster than two rows on the 150×150 bench matrix).
  for (; r + 3 < n; r += 4) {
    const o0 = r * n,
      o1 = o0 + n,
      o2 = o1 + n,
      o3 = o2 + n;
    let v0 = z[o0 + m]!,
      v1 = z[o1 + m]!,
      v2 = z[o2 + m]!,
      v3 = z[o3 + m]!;
    for (let i = m - 1; i >= l; i--) {
      const c = cs[i]!,
        s = sn[i]!;
      const a0 = z[o0 + i]!,
        a1 = z[o1 + i]!,
        a2 = z[o2 + i]!,
        a3 = z[o3 + i]!;
      z[o0 + i + 1] = s * a0 + c * v0;
      z[o1 + i + 1] = s * a1 + c * v1;
      z[o2 + i + 1] = s * a2 + c * v2;
      z[o3 + i + 1] = s * a3 + c * v3;
      v0 = c * a0 - s * v0;
      v1 = c * a1 - s * v1;
      v2 = c * a2 - s * v2;
      v3 = c * a3 - s * v3;
    }
    z[o0 + l] = v0;
    z[o1 + l] = v1;
    z[o2 + l] = v2;
    z[o3 + l] = v3;
  }
  for (; r < n; r++) {
    const o = r * n;
    let v = z[o + m]!;
    for (let i = m - 1; i >= l; i--) {
      const a0 = z[o + i]!;
      z[o + i + 1] = sn[i]! * a0 + cs[i]! * v;
      v = cs[i]! * a0 - sn[i]! * v;
    }
    z[o + l] = v;
  }
}
