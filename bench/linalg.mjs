// Dense linear algebra against LAPACK: eigen-symmetric on a 150×150 and linear-lu on a 200×200
// matrix through the solvers service, beside numpy/SciPy on the same matrices in the same run, CPU time on
// both sides, both single-threaded (OPENBLAS_NUM_THREADS=1): the solvers use one core.
import { execFileSync } from 'node:child_process';
import { percentile } from './lib.mjs';
import { solversService } from './solvers.mjs';

/** A fixed xorshift32 sequence in [-1, 1): the same matrices every run. */
function randoms(seed) {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 31 - 1;
  };
}

function symmetric(n, seed) {
  const next = randoms(seed);
  const a = Array.from({ length: n }, () => new Array(n).fill(0));
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) a[i][j] = a[j][i] = next();
  return a;
}

function general(n, seed) {
  const next = randoms(seed);
  return Array.from({ length: n }, () => Array.from({ length: n }, next));
}

const PYTHON = `
import json, sys, time
import numpy as np, scipy, scipy.linalg as sl
from scipy.linalg import lapack
data = json.load(sys.stdin)
S = np.array(data["S"]); B = np.array(data["B"]); b = np.array(data["b"]); runs = data["runs"]
def median_ms(f):
    # CPU time of the call, as on the Node side.
    for _ in range(3): f()
    ts = []
    for _ in range(runs):
        t = time.process_time(); f(); ts.append((time.process_time() - t) * 1000)
    ts.sort(); return ts[len(ts) // 2]
def lu_like_ours():
    # What linear-lu answers by default: x, the residual, the determinant and the 1-norm condition number
    # estimated by LAPACK's dgecon (the estimate linear-lu's condition_number_method=estimated follows).
    lu = sl.lu_factor(B); x = sl.lu_solve(lu, b)
    anorm = np.abs(B).sum(0).max()
    rcond, _ = lapack.dgecon(lu[0], anorm, norm="1")
    return x, np.linalg.norm(B @ x - b), np.prod(np.diag(lu[0])), 1 / rcond
def lu_exact_like_ours():
    # linear-lu with condition_number_method=exact: the exact 1-norm condition number via the inverse.
    lu = sl.lu_factor(B); x = sl.lu_solve(lu, b)
    inv = sl.lu_solve(lu, np.eye(B.shape[0]))
    return x, np.linalg.norm(B @ x - b), np.prod(np.diag(lu[0])), np.abs(B).sum(0).max() * np.abs(inv).sum(0).max()
print(json.dumps({
    "numpy": np.__version__, "scipy": scipy.__version__,
    "eigvalsh_ms": median_ms(lambda: np.linalg.eigvalsh(S)),
    "eigh_ms": median_ms(lambda: np.linalg.eigh(S)),
    "lu_solve_ms": median_ms(lambda: sl.lu_solve(sl.lu_factor(B), b)),
    "lu_solve_gecon_ms": median_ms(lu_like_ours),
    "lu_solve_cond_ms": median_ms(lu_exact_like_ours),
}))
`;

/**
 * Median milliseconds of each solve and of its LAPACK counterpart. The LAPACK side is absent (with the
 * reason) when python3 with numpy and scipy is not installed.
 */
export async function linalgVsLapack({ runs = 30 } = {}) {
  const S = symmetric(150, 150);
  const B = general(200, 200);
  const b = new Array(200).fill(1);
  const solvers = await solversService();
  const caller = { uid: null, credential: 'none' };
  // The figure is CPU time of the solver's work (input checks and numerics, no receipt: `recompute`), so a
  // busy machine skews it less than wall time; `solver_ms` is the wall solver time an answer reports
  // (`diagnostics.duration_ms`), `call_ms` the whole in-process solve with its receipt.
  const time = async (id, inputs, options) => {
    for (let i = 0; i < 2; i++) await solvers.solve(id, inputs, options, { caller });
    const cpu = [];
    const solver = [];
    const call = [];
    for (let i = 0; i < runs; i++) {
      const c = process.cpuUsage();
      await solvers.recompute(id, inputs, options);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
      const t = performance.now();
      const answer = await solvers.solve(id, inputs, options, { caller });
      call.push(performance.now() - t);
      solver.push(answer.diagnostics.duration_ms);
    }
    const round = (x) => Math.round(x * 100) / 100;
    return { cpu_ms: round(percentile(cpu, 50)), solver_ms: round(percentile(solver, 50)), call_ms: round(percentile(call, 50)) };
  };
  const ours = {
    eigen_values: await time('eigen-symmetric', { A: S }, { eigenvectors: false }),
    eigen_vectors: await time('eigen-symmetric', { A: S }, { eigenvectors: true }),
    lu: await time('linear-lu', { A: B, b }),
    lu_exact: await time('linear-lu', { A: B, b }, { condition_number_method: 'exact' }),
  };
  let lapack;
  try {
    const out = execFileSync('python3', ['-c', PYTHON], {
      input: JSON.stringify({ S, B, b, runs }),
      env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });
    lapack = JSON.parse(out.toString());
  } catch (err) {
    lapack = { error: `python3 with numpy and scipy is needed for the LAPACK side: ${String(err?.message ?? err).split('\n')[0]}` };
  }
  return { runs, ours, lapack };
}
