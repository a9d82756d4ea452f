/**
 * The inner loops of eigen-symmetric (`eigen-symmetric.ts`), row-oriented for row-major storage. Each keeps
 * the order of every sum and the expression of every element of the EISPACK/JAMA loops it replaces, so the
 * results are the same bits; only loads, stores and loop overhead go (test/unit/solvers/eigen-symmetric-kernel.test.ts).
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
 * Applies reflector i of the accumulation to the leading (i+1)×(i+1) block of v: g = uᵀV with u = column i+1,
 * then V ← V − d·gᵀ. Four rows per pass keep g_j in a register across four terms, added in the same k order,
 * and share the loads of g_j in the update: the same bits as one row at a time, with fewer loads and stores.
 */
export function accumulateReflector(v: Float64Array, n: number, i: number, d: Float64Array, g: Float64Array): void {
  const len = i + 1;
  g.fill(0, 0, len);
  let k = 0;
  for (; k + 3 < len; k += 4) {
    const r0 = k * n,
      r1 = r0 + n,
      r2 = r1 + n,
      r3 = r2 + n;
    const u0 = v[r0 + i + 1]!,
      u1 = v[r1 + i + 1]!,
      u2 = v[r2 + i + 1]!,
      u3 = v[r3 + i + 1]!;
    for (let j = 0; j < len; j++) g[j] = g[j]! + u0 * v[r0 + j]! + u1 * v[r1 + j]! + u2 * v[r2 + j]! + u3 * v[r3 + j]!;
  }
  for (; k < len; k++) {
    const u = v[k * n + i + 1]!,
      ro = k * n;
    for (let j = 0; j < len; j++) g[j] = g[j]! + u * v[ro + j]!;
  }
  k = 0;
  for (; k + 3 < len; k += 4) {
    const r0 = k * n,
      r1 = r0 + n,
      r2 = r1 + n,
      r3 = r2 + n;
    const d0 = d[k]!,
      d1 = d[k + 1]!,
      d2 = d[k + 2]!,
      d3 = d[k + 3]!;
    for (let j = 0; j < len; j++) {
      const gj = g[j]!;
      v[r0 + j] = v[r0 + j]! - gj * d0;
      v[r1 + j] = v[r1 + j]! - gj * d1;
      v[r2 + j] = v[r2 + j]! - gj * d2;
      v[r3 + j] = v[r3 + j]! - gj * d3;
    }
  }
  for (; k < len; k++) {
    const dk = d[k]!,
      ro = k * n;
    for (let j = 0; j < len; j++) v[ro + j] = v[ro + j]! - g[j]! * dk;
  }
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
