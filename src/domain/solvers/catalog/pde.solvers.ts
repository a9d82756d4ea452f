import { solveTridiagonal } from '../numeric/linalg.js';
import { input, MAX_ITERATIONS, TOLERANCE, unprocessable, type Args, type SolverDef } from '../solver-def.js';
import { compileInput } from './roots.solvers.js';

/** A function of position from an expression input (over x, or x and y) and the parameters. */
function field(a: Args, name: string, vars: string[]): (...xs: number[]) => number {
  const { fn, vars: scope } = compileInput(name, a.str(name), vars, a.obj('parameters'));
  return (...xs) => {
    for (let i = 0; i < xs.length; i++) scope[i] = xs[i]!;
    return fn(scope);
  };
}

function finiteOr422(values: ArrayLike<number>, what: string): void {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) unprocessable(`${what} is not finite at grid point ${i}`);
}

export const heat1d: SolverDef = {
  id: 'pde-heat-1d',
  name: '1-D heat equation, Crank-Nicolson',
  domain: 'pde',
  method: 'Crank-Nicolson finite differences (2nd order in space and time, unconditionally stable), Thomas algorithm',
  operator_chain: ['KO42', 'HT22', 'HT12'],
  unit: 'K',
  version: '1.0.0',
  description:
    'Solves u_t = α·u_xx on [0, L] with fixed end temperatures and an initial profile written as an expression in x. Returns the temperature on the grid at t_end. Stable for any time step; accuracy is O(Δt² + Δx²).',
  inputs: [
    input('length', 'number', 'Rod length L', { unit: 'm', min: 1e-9, max: 1e6 }),
    input('diffusivity', 'number', 'Thermal diffusivity α', { unit: 'm^2/s', min: 1e-15, max: 1e3 }),
    input('t_end', 'number', 'Final time', { unit: 's', min: 0, max: 1e12 }),
    input('initial', 'string', 'Initial temperature u(x, 0) as an expression in x and the parameters', { unit: 'K' }),
    input('left', 'number', 'Temperature held at x = 0', { unit: 'K', default: 0, min: -1e9, max: 1e9 }),
    input('right', 'number', 'Temperature held at x = L', { unit: 'K', default: 0, min: -1e9, max: 1e9 }),
    input('nx', 'integer', 'Number of grid intervals', { default: 100, min: 2, max: 2000 }),
    input('nt', 'integer', 'Number of time steps', { default: 1000, min: 1, max: 1_000_000 }),
    input('parameters', 'object', 'Named constants used by the initial profile (L is available as "L")', { default: {} }),
  ],
  options: [],
  example: { length: 1, diffusivity: 0.01, t_end: 10, initial: '100*sin(pi*x/L)', nx: 50, nt: 200 },
  async run(a, _o, ctl) {
    const L = a.num('length'),
      alpha = a.num('diffusivity'),
      tEnd = a.num('t_end');
    const nx = a.int('nx'),
      nt = a.int('nt');
    if (nx * nt > 5e8) unprocessable(`nx × nt = ${nx * nt}; keep it under 5e8`);
    const u0 = field({ ...a, obj: (n: string) => (n === 'parameters' ? { L, ...a.obj('parameters') } : a.obj(n)) }, 'initial', ['x']);
    const dx = L / nx,
      dt = tEnd / nt;
    const x = Array.from({ length: nx + 1 }, (_, i) => (i === nx ? L : i * dx));
    const u = Float64Array.from(x, (xi) => u0(xi));
    u[0] = a.num('left');
    u[nx] = a.num('right');
    finiteOr422(u, 'the initial profile');
    const m = nx - 1,
      r = (alpha * dt) / (dx * dx);
    const sub = new Float64Array(m).fill(-r / 2),
      diag = new Float64Array(m).fill(1 + r),
      sup = new Float64Array(m).fill(-r / 2);
    const d = new Float64Array(m);
    for (let s = 0; s < nt; s++) {
      for (let i = 1; i <= m; i++) d[i - 1] = (r / 2) * u[i - 1]! + (1 - r) * u[i]! + (r / 2) * u[i + 1]!;
      d[0] = d[0]! + (r / 2) * u[0]!;
      d[m - 1] = d[m - 1]! + (r / 2) * u[nx]!;
      const next = solveTridiagonal(sub, diag, sup, d);
      u.set(next, 1);
      if ((s & 255) === 255) await ctl.checkpoint(s, nt, 'time steps');
    }
    return { result: { x, u: Array.from(u), t_end: tEnd, dx, dt, mesh_ratio: r }, converged: true, iterations: nt, error_estimate: null };
  },
};

export const wave1d: SolverDef = {
  id: 'pde-wave-1d',
  name: '1-D wave equation, leapfrog',
  domain: 'pde',
  method: 'Explicit second-order central differences in space and time (leapfrog), CFL-limited',
  operator_chain: ['KO42', 'AC11'],
  unit: 'm',
  version: '1.0.0',
  description:
    'Solves u_tt = c²·u_xx on a string of length L with fixed ends, from an initial displacement and velocity written as expressions in x. The time step follows from the Courant number (≤ 1 for stability). Returns the displacement on the grid at t_end and the discrete energy drift.',
  inputs: [
    input('length', 'number', 'String length L', { unit: 'm', min: 1e-9, max: 1e6 }),
    input('wave_speed', 'number', 'Wave speed c', { unit: 'm/s', min: 1e-9, max: 1e9 }),
    input('t_end', 'number', 'Final time', { unit: 's', min: 1e-12, max: 1e9 }),
    input('displacement', 'string', 'Initial displacement u(x, 0) as an expression in x (L is available)', { unit: 'm' }),
    input('velocity', 'string', 'Initial velocity u_t(x, 0) as an expression in x', { unit: 'm/s', default: '0' }),
    input('nx', 'integer', 'Number of grid intervals', { default: 200, min: 2, max: 5000 }),
    input('courant', 'number', 'Courant number c·Δt/Δx (stability needs ≤ 1)', { default: 0.9, min: 0.01, max: 1 }),
    input('parameters', 'object', 'Named constants used by the expressions', { default: {} }),
  ],
  options: [MAX_ITERATIONS(1_000_000, 10_000_000)],
  example: { length: 1, wave_speed: 1, t_end: 0.5, displacement: '0.01*sin(pi*x/L)', nx: 100, courant: 0.5 },
  async run(a, o, ctl) {
    const L = a.num('length'),
      c = a.num('wave_speed'),
      tEnd = a.num('t_end'),
      nx = a.int('nx');
    const withL = { ...a, obj: (n: string) => (n === 'parameters' ? { L, ...a.obj('parameters') } : a.obj(n)) };
    const f = field(withL, 'displacement', ['x']),
      g = field(withL, 'velocity', ['x']);
    const dx = L / nx;
    const nt = Math.max(1, Math.ceil((tEnd * c) / (a.num('courant') * dx)));
    if (nt > o.int('max_iterations')) unprocessable(`this needs ${nt} time steps, more than max_iterations; use fewer grid intervals or a shorter t_end`);
    if (nt * nx > 1e9) unprocessable(`nx × steps = ${nt * nx}; keep it under 1e9`);
    const dt = tEnd / nt,
      C2 = ((c * dt) / dx) ** 2;
    const x = Array.from({ length: nx + 1 }, (_, i) => (i === nx ? L : i * dx));
    let prev = Float64Array.from(x, (xi) => f(xi));
    prev[0] = 0;
    prev[nx] = 0;
    finiteOr422(prev, 'the initial displacement');
    let cur = new Float64Array(nx + 1);
    for (let i = 1; i < nx; i++) cur[i] = prev[i]! + dt * g(x[i]!) + 0.5 * C2 * (prev[i + 1]! - 2 * prev[i]! + prev[i - 1]!);
    finiteOr422(cur, 'the first step');
    const energy = (u: Float64Array, w: Float64Array) => {
      // Discrete energy conserved by leapfrog: kinetic from the time difference, potential from both levels.
      let e = 0;
      for (let i = 0; i < nx; i++) {
        const v = (w[i]! - u[i]!) / dt;
        e += 0.5 * v * v * dx + (0.5 * c * c * ((u[i + 1]! - u[i]!) * (w[i + 1]! - w[i]!))) / dx;
      }
      return e;
    };
    const e0 = energy(prev, cur);
    let next = new Float64Array(nx + 1);
    for (let s = 1; s < nt; s++) {
      for (let i = 1; i < nx; i++) next[i] = 2 * cur[i]! - prev[i]! + C2 * (cur[i + 1]! - 2 * cur[i]! + cur[i - 1]!);
      [prev, cur, next] = [cur, next, prev];
      if ((s & 255) === 255) await ctl.checkpoint(s, nt, 'time steps');
    }
    const e1 = energy(prev, cur);
    const drift = e0 === 0 ? 0 : Math.abs(e1 - e0) / Math.abs(e0);
    return {
      result: { x, u: Array.from(cur), t_end: tEnd, dt, steps: nt, courant: (c * dt) / dx, energy_relative_drift: drift },
      converged: true,
      iterations: nt,
      error_estimate: drift,
    };
  },
};

export const poisson2d: SolverDef = {
  id: 'pde-poisson-2d',
  name: '2-D Poisson equation, finite differences',
  domain: 'pde',
  method: '5-point finite-difference Laplacian, matrix-free conjugate gradient',
  operator_chain: ['KO42', 'EM3'],
  unit: '',
  version: '1.0.0',
  description:
    'Solves ∇²u = f on the rectangle [0, Lx] × [0, Ly] with u = g on the boundary; f and g are expressions in x and y. The discrete Laplacian is symmetric negative definite, so conjugate gradient converges without a matrix. Returns u on the grid (rows by y) and the value at the centre.',
  inputs: [
    input('source', 'string', 'Right-hand side f(x, y) of ∇²u = f'),
    input('boundary', 'string', 'Boundary value g(x, y)', { default: '0' }),
    input('lx', 'number', 'Width of the domain', { unit: 'm', default: 1, min: 1e-9, max: 1e6 }),
    input('ly', 'number', 'Height of the domain', { unit: 'm', default: 1, min: 1e-9, max: 1e6 }),
    input('nx', 'integer', 'Grid intervals along x', { default: 32, min: 2, max: 128 }),
    input('ny', 'integer', 'Grid intervals along y', { default: 32, min: 2, max: 128 }),
    input('parameters', 'object', 'Named constants used by the expressions', { default: {} }),
  ],
  options: [TOLERANCE(1e-10, 1e-14), MAX_ITERATIONS(20_000, 200_000)],
  example: { source: '-2*pi^2*sin(pi*x)*sin(pi*y)', nx: 32, ny: 32 },
  async run(a, o, ctl) {
    const lx = a.num('lx'),
      ly = a.num('ly'),
      nx = a.int('nx'),
      ny = a.int('ny');
    const f = field(a, 'source', ['x', 'y']),
      g = field(a, 'boundary', ['x', 'y']);
    const hx = lx / nx,
      hy = ly / ny,
      ix2 = 1 / (hx * hx),
      iy2 = 1 / (hy * hy);
    const W = nx + 1,
      H = ny + 1;
    const u = new Float64Array(W * H);
    const xs = Array.from({ length: W }, (_, i) => (i === nx ? lx : i * hx)),
      ys = Array.from({ length: H }, (_, j) => (j === ny ? ly : j * hy));
    for (let j = 0; j < H; j++) for (let i = 0; i < W; i++) if (i === 0 || j === 0 || i === nx || j === ny) u[j * W + i] = g(xs[i]!, ys[j]!);
    finiteOr422(u, 'the boundary value');
    // Unknowns are the interior points; solve A v = b with A = -∇²_h (SPD), boundary moved to b.
    const m = (nx - 1) * (ny - 1),
      idx = (i: number, j: number) => (j - 1) * (nx - 1) + (i - 1);
    const b = new Float64Array(m);
    for (let j = 1; j < ny; j++) {
      for (let i = 1; i < nx; i++) {
        let v = -f(xs[i]!, ys[j]!);
        if (i === 1) v += ix2 * u[j * W]!;
        if (i === nx - 1) v += ix2 * u[j * W + nx]!;
        if (j === 1) v += iy2 * u[i]!;
        if (j === ny - 1) v += iy2 * u[ny * W + i]!;
        b[idx(i, j)] = v;
      }
    }
    finiteOr422(b, 'the source');
    const apply = (p: Float64Array, out: Float64Array) => {
      for (let j = 1; j < ny; j++) {
        for (let i = 1; i < nx; i++) {
          const k = idx(i, j),
            c = p[k]!;
          let s = 2 * (ix2 + iy2) * c;
          if (i > 1) s -= ix2 * p[k - 1]!;
          if (i < nx - 1) s -= ix2 * p[k + 1]!;
          if (j > 1) s -= iy2 * p[k - (nx - 1)]!;
          if (j < ny - 1) s -= iy2 * p[k + (nx - 1)]!;
          out[k] = s;
        }
      }
    };
    const v = new Float64Array(m),
      r = Float64Array.from(b),
      p = Float64Array.from(b),
      Ap = new Float64Array(m);
    const dot = (x: Float64Array, y: Float64Array) => {
      let s = 0;
      for (let k = 0; k < x.length; k++) s += x[k]! * y[k]!;
      return s;
    };
    const bnorm = Math.sqrt(dot(b, b)) || 1;
    let rr = dot(r, r),
      it = 0;
    const tol = o.num('tolerance'),
      maxIt = o.int('max_iterations');
    while (Math.sqrt(rr) / bnorm > tol) {
      if (it >= maxIt) unprocessable(`CG did not converge within ${maxIt} iterations (relative residual ${Math.sqrt(rr) / bnorm})`);
      apply(p, Ap);
      const alpha = rr / dot(p, Ap);
      for (let k = 0; k < m; k++) {
        v[k] = v[k]! + alpha * p[k]!;
        r[k] = r[k]! - alpha * Ap[k]!;
      }
      const rrNew = dot(r, r);
      const beta = rrNew / rr;
      rr = rrNew;
      for (let k = 0; k < m; k++) p[k] = r[k]! + beta * p[k]!;
      it++;
      if ((it & 63) === 0) await ctl.checkpoint(it, maxIt, 'CG iterations');
    }
    for (let j = 1; j < ny; j++) for (let i = 1; i < nx; i++) u[j * W + i] = v[idx(i, j)]!;
    const grid = Array.from({ length: H }, (_, j) => Array.from(u.subarray(j * W, j * W + W)));
    const centre = bilinear(u, W, hx, hy, lx / 2, ly / 2);
    return {
      result: { x: xs, y: ys, u: grid, u_center: centre, residual: Math.sqrt(rr) / bnorm },
      converged: true,
      iterations: it,
      error_estimate: Math.sqrt(rr) / bnorm,
    };
  },
};

function bilinear(u: Float64Array, W: number, hx: number, hy: number, x: number, y: number): number {
  const i = Math.min(Math.floor(x / hx), W - 2),
    j = Math.floor(y / hy);
  const sx = x / hx - i,
    sy = y / hy - j;
  const H = u.length / W;
  const j1 = Math.min(j + 1, H - 1);
  return (1 - sx) * (1 - sy) * u[j * W + i]! + sx * (1 - sy) * u[j * W + i + 1]! + (1 - sx) * sy * u[j1 * W + i]! + sx * sy * u[j1 * W + i + 1]!;
}
