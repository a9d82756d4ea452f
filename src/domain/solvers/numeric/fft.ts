/**
 * Discrete Fourier transform: iterative radix-2 Cooley-Tukey for power-of-two lengths and Bluestein's
 * chirp-z algorithm (three power-of-two FFTs) for any other length. Twiddle factors come straight from
 * Math.cos/Math.sin of the exact angle (no recurrence), so rounding does not accumulate.
 */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  if (n <= 1) return;
  if ((n & (n - 1)) === 0) radix2(re, im, inverse);
  else bluestein(re, im, inverse);
}

function radix2(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      let t = re[i]!;
      re[i] = re[j]!;
      re[j] = t;
      t = im[i]!;
      im[i] = im[j]!;
      im[j] = t;
    }
  }
  const sign = inverse ? 1 : -1;
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const cos = new Float64Array(half),
      sin = new Float64Array(half);
    for (let k = 0; k < half; k++) {
      const angle = (sign * 2 * Math.PI * k) / len;
      cos[k] = Math.cos(angle);
      sin[k] = Math.sin(angle);
    }
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < half; k++) {
        const a = i + k,
          b = a + half;
        const tr = re[b]! * cos[k]! - im[b]! * sin[k]!;
        const ti = re[b]! * sin[k]! + im[b]! * cos[k]!;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
}

function bluestein(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  let m = 1;
  while (m < 2 * n - 1) m <<= 1;
  const sign = inverse ? 1 : -1;
  const wr = new Float64Array(n),
    wi = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    // k² mod 2n keeps the angle small, so cos/sin stay accurate for large k.
    const angle = (sign * Math.PI * ((k * k) % (2 * n))) / n;
    wr[k] = Math.cos(angle);
    wi[k] = Math.sin(angle);
  }
  const ar = new Float64Array(m),
    ai = new Float64Array(m),
    br = new Float64Array(m),
    bi = new Float64Array(m);
  for (let k = 0; k < n; k++) {
    ar[k] = re[k]! * wr[k]! - im[k]! * wi[k]!;
    ai[k] = re[k]! * wi[k]! + im[k]! * wr[k]!;
  }
  br[0] = wr[0]!;
  bi[0] = -wi[0]!;
  for (let k = 1; k < n; k++) {
    br[k] = br[m - k] = wr[k]!;
    bi[k] = bi[m - k] = -wi[k]!;
  }
  radix2(ar, ai, false);
  radix2(br, bi, false);
  for (let k = 0; k < m; k++) {
    const r = ar[k]! * br[k]! - ai[k]! * bi[k]!;
    ai[k] = ar[k]! * bi[k]! + ai[k]! * br[k]!;
    ar[k] = r;
  }
  radix2(ar, ai, true);
  for (let k = 0; k < n; k++) {
    const r = ar[k]! / m,
      i = ai[k]! / m;
    re[k] = r * wr[k]! - i * wi[k]!;
    im[k] = r * wi[k]! + i * wr[k]!;
  }
}
