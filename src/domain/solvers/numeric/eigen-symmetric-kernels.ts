/**
 * The inner loops of eigen-symmetric (`eigen-symmetric.ts`), row-oriented for row-major storage. The reduction
 * keeps the order of every sum and the expression of every element of EISPACK/JAMA's tred2, so the tridiagonal
 * (and so the eigenvalues) are its bits; only loads, stores and loop overhead go
 * (test/unit/solvers/eigen-symmetric-kernel.test.ts).
 */

/**
 * One reflector of tred2 (u = d[0..i-1], H = h): p = A·u / h over the lower triangle of rows 0..i-1, K = uᵀp / 2h,
 * q = p − K·u in e[0..i-1], then A ← A − u·qᵀ − q·uᵀ; u is kept in column i for the accumulation.
 */
export function reflectorStep(v: Float64Array, n: number, i: number, d: Float64Array, e: Float64Array, h: number): void {
  for (let j = 0; j < i; j++) v[j * n + i] = d[j]!;
  // tred2 takes e[j] = (Σ_{k<j} A[j][k]·u_k + A[j][j]·u_j) + Σ_{k>j} A[k][j]·u_k, the second sum by k ascending.
  // Row k of the lower triangle holds A[k][0..k]: it completes e[k]'s first part and adds to e[j<k]'s second.
  // Rows go in pairs (k, k+1) so e[j] takes both rows' terms in one load and store, still row k's first.
  let k = 0;
  for (; k + 1 < i; k += 2) {
    const r0 = k * n,
      r1 = r0 + n,
      d0 = d[k]!,
      d1 = d[k + 1]!;
    let t0 = 0,
      t1 = 0;
    for (let j = 0; j < k; j++) {
      const x0 = v[r0 + j]!,
        x1 = v[r1 + j]!,
        dj = d[j]!;
      t0 += x0 * dj;
      t1 += x1 * dj;
      e[j] = e[j]! + x0 * d0 + x1 * d1;
    }
    e[k] = t0 + v[r0 + k]! * d0;
    const x = v[r1 + k]!;
    t1 += x * d0;
    e[k] = e[k]! + x * d1;
    e[k + 1] = t1 + v[r1 + k + 1]! * d1;
  }
  for (; k < i; k++) {
    const ro = k * n,
      dk = d[k]!;
    let t = 0;
    for (let j = 0; j < k; j++) {
      const x = v[ro + j]!;
      t += x * d[j]!;
      e[j] = e[j]! + x * dk;
    }
    e[k] = t + v[ro + k]! * dk;
  }
  let f = 0;
  for (let j = 0; j < i; j++) {
    e[j] = e[j]! / h;
    f += e[j]! * d[j]!;
  }
  const hh = f / (h + h);
  for (let j = 0; j < i; j++) e[j] = e[j]! - hh * d[j]!;
  // A ← A − u·qᵀ − q·uᵀ on the lower triangle, two rows per pass sharing the loads of u_j and q_j (elementwise: same bits).
  k = 0;
  for (; k + 1 < i; k += 2) {
    const r0 = k * n,
      r1 = r0 + n,
      e0 = e[k]!,
      d0 = d[k]!,
      e1 = e[k + 1]!,
      d1 = d[k + 1]!;
    for (let j = 0; j <= k; j++) {
      const dj = d[j]!,
        ej = e[j]!;
      v[r0 + j] = v[r0 + j]! - (dj * e0 + ej * d0);
      v[r1 + j] = v[r1 + j]! - (dj * e1 + ej * d1);
    }
    v[r1 + k + 1] = v[r1 + k + 1]! - (d1 * e1 + e1 * d1);
  }
  for (; k < i; k++) {
    const ro = k * n,
      ek = e[k]!,
      dk = d[k]!;
    for (let j = 0; j <= k; j++) v[ro + j] = v[ro + j]! - (d[j]! * ek + e[j]! * dk);
  }
  for (let j = 0; j < i; j++) {
    d[j] = v[(i - 1) * n + j]!;
    v[i * n + j] = 0;
  }
}

/**
 * Rows of `x` (each a vector in the tridiagonal basis) ← Q·row, Q = P_{n-1}···P_1 the tred2 reflectors:
 * P_i = I − u·uᵀ/h_i with u = row i of `u` (entries 0..i−1), h_i = h[i] (0: P_i = I). Applied to four rows
 * at once: they share the loads of u and give four independent dot products to hide the adds' latency.
 */
export function backTransformRows(x: Float64Array, rows: number, n: number, u: Float64Array, h: Float64Array): void {
  let r = 0;
  for (; r + 3 < rows; r += 4) {
    const o0 = r * n,
      o1 = o0 + n,
      o2 = o1 + n,
      o3 = o2 + n;
    for (let i = 1; i < n; i++) {
      const hi = h[i]!;
      if (hi === 0) continue;
      const ui = i * n;
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0;
      for (let k = 0; k < i; k++) {
        const uk = u[ui + k]!;
        s0 += uk * x[o0 + k]!;
        s1 += uk * x[o1 + k]!;
        s2 += uk * x[o2 + k]!;
        s3 += uk * x[o3 + k]!;
      }
      s0 /= hi;
      s1 /= hi;
      s2 /= hi;
      s3 /= hi;
      for (let k = 0; k < i; k++) {
        const uk = u[ui + k]!;
        x[o0 + k] = x[o0 + k]! - s0 * uk;
        x[o1 + k] = x[o1 + k]! - s1 * uk;
        x[o2 + k] = x[o2 + k]! - s2 * uk;
        x[o3 + k] = x[o3 + k]! - s3 * uk;
      }
    }
  }
  for (; r < rows; r++) {
    const o = r * n;
    for (let i = 1; i < n; i++) {
      const hi = h[i]!;
      if (hi === 0) continue;
      const ui = i * n;
      let s = 0;
      for (let k = 0; k < i; k++) s += u[ui + k]! * x[o + k]!;
      s /= hi;
      for (let k = 0; k < i; k++) x[o + k] = x[o + k]! - s * u[ui + k]!;
    }
  }
}
