import { unprocessable } from '../solver-def.js';

// Gauss-Kronrod 7-15 nodes and weights (QUADPACK qk15); the Gauss nodes are xgk[1], xgk[3], xgk[5], xgk[7].
const XGK = [
  0.991455371120812639206854697526329, 0.949107912342758524526189684047851, 0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
  0.586087235467691130294144845693013, 0.405845151377397166906606412076961, 0.207784955007898467600689403773245, 0,
];
const WGK = [
  0.02293532201052922496373200805897, 0.063092092629978553290700663189204, 0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
  0.16900472663926790282658342659855, 0.190350578064785409913256402421014, 0.204432940075298892414161999234649, 0.209482141084727828012999174891714,
];
const WG = [0.129484966168869693270611432679082, 0.27970539148927666790146777142378, 0.381830050505118944950369775488975, 0.417959183673469387755102040816327];

interface Piece {
  a: number;
  b: number;
  value: number;
  error: number;
  /** Creation order, to break ties in the queue deterministically. */
  order: number;
}

/** One 15-point Kronrod estimate with QUADPACK's error estimate. */
export function gk15(f: (x: number) => number, a: number, b: number): { value: number; error: number } {
  const center = 0.5 * (a + b);
  const half = 0.5 * (b - a);
  const fc = f(center);
  let kronrod = fc * WGK[7]!;
  let gauss = fc * WG[3]!;
  let abs = Math.abs(kronrod);
  const f1 = new Float64Array(7),
    f2 = new Float64Array(7);
  for (let j = 0; j < 7; j++) {
    const dx = half * XGK[j]!;
    const y1 = f(center - dx),
      y2 = f(center + dx);
    f1[j] = y1;
    f2[j] = y2;
    kronrod += WGK[j]! * (y1 + y2);
    abs += WGK[j]! * (Math.abs(y1) + Math.abs(y2));
    if (j % 2 === 1) gauss += WG[(j - 1) / 2]! * (y1 + y2);
  }
  const mean = kronrod * 0.5;
  let asc = WGK[7]! * Math.abs(fc - mean);
  for (let j = 0; j < 7; j++) asc += WGK[j]! * (Math.abs(f1[j]! - mean) + Math.abs(f2[j]! - mean));
  const value = kronrod * half;
  asc *= Math.abs(half);
  abs *= Math.abs(half);
  let error = Math.abs((kronrod - gauss) * half);
  if (asc !== 0 && error !== 0) error = asc * Math.min(1, Math.pow((200 * error) / asc, 1.5));
  if (abs > Number.MIN_VALUE / (50 * Number.EPSILON)) error = Math.max(50 * Number.EPSILON * abs, error);
  return { value, error };
}

export interface QuadResult {
  value: number;
  error: number;
  intervals: number;
  evaluations: number;
}

/**
 * Globally adaptive Gauss-Kronrod quadrature (QUADPACK QAG strategy): the interval with the largest error
 * is bisected until the summed error is within max(absTol, relTol·|I|). Infinite limits are mapped to a
 * finite interval (x = a + t/(1-t), or x = t/(1-t²) on the whole line).
 */
export function integrate(f: (x: number) => number, a: number, b: number, absTol: number, relTol: number, maxIntervals: number): QuadResult {
  if (a === b) return { value: 0, error: 0, intervals: 0, evaluations: 0 };
  if (a > b) {
    const r = integrate(f, b, a, absTol, relTol, maxIntervals);
    return { ...r, value: -r.value };
  }
  let g = f,
    lo = a,
    hi = b;
  if (a === -Infinity && b === Infinity) {
    g = (t) => {
      const d = 1 - t * t;
      return (f(t / d) * (1 + t * t)) / (d * d);
    };
    lo = -1;
    hi = 1;
  } else if (b === Infinity) {
    g = (t) => f(a + t / (1 - t)) / ((1 - t) * (1 - t));
    lo = 0;
    hi = 1;
  } else if (a === -Infinity) {
    g = (t) => f(b - (1 - t) / t) / (t * t);
    lo = 0;
    hi = 1;
  }
  const checked = (x: number) => {
    const y = g(x);
    if (!Number.isFinite(y)) unprocessable(`The integrand is not finite at x = ${x}; split the interval at the singularity or move the limit`, { x });
    return y;
  };
  let order = 0;
  const first = gk15(checked, lo, hi);
  const heap: Piece[] = [{ a: lo, b: hi, ...first, order: order++ }];
  let value = first.value,
    error = first.error;
  let evaluations = 15;
  while (error > Math.max(absTol, relTol * Math.abs(value))) {
    if (heap.length >= maxIntervals) {
      unprocessable(
        `The integral did not reach the tolerance within ${maxIntervals} subintervals (estimate ${value}, error ${error}); the integrand may be singular or oscillate too fast`,
        { value, error },
      );
    }
    const worst = pop(heap);
    const mid = 0.5 * (worst.a + worst.b);
    if (mid <= worst.a || mid >= worst.b) {
      unprocessable(`The interval near x = ${worst.a} cannot be split further: the integrand is likely singular there`, { x: worst.a });
    }
    const left = gk15(checked, worst.a, mid),
      right = gk15(checked, mid, worst.b);
    evaluations += 30;
    value += left.value + right.value - worst.value;
    error += left.error + right.error - worst.error;
    push(heap, { a: worst.a, b: mid, ...left, order: order++ });
    push(heap, { a: mid, b: worst.b, ...right, order: order++ });
  }
  // Re-sum in interval order so the reported value does not depend on the update history's rounding.
  const pieces = [...heap].sort((p, q) => p.a - q.a);
  value = 0;
  error = 0;
  for (const p of pieces) {
    value += p.value;
    error += p.error;
  }
  return { value, error, intervals: heap.length, evaluations };
}

const before = (p: Piece, q: Piece) => p.error > q.error || (p.error === q.error && p.order < q.order);

function push(heap: Piece[], item: Piece): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function pop(heap: Piece[]): Piece {
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length > 0) {
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1,
        r = l + 1;
      let best = i;
      if (l < heap.length && before(heap[l]!, heap[best]!)) best = l;
      if (r < heap.length && before(heap[r]!, heap[best]!)) best = r;
      if (best === i) break;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  }
  return top;
}
