import type { SolverDef } from '../solver-def.js';
import { fftSpectrum, optimizeBfgs, optimizeNelderMead, quadGaussKronrod } from './calculus.solvers.js';
import { nodalAnalysis, rlcTransient } from './circuits.solvers.js';
import { epidemicSeir, lorenzLyapunov, lotkaVolterra } from './dynamics.solvers.js';
import { blasius, colebrook } from './fluids.solvers.js';
import { eigenSymmetric, leastSquaresQr, linearCg, linearLu } from './linear-algebra.solvers.js';
import { nbodyVerlet, projectileDrag } from './mechanics.solvers.js';
import { odeDopri45, odeRk4, odeStiff } from './ode.solvers.js';
import { hohmannTransfer, keplerEquation, lambertTransfer } from './orbital.solvers.js';
import { heat1d, poisson2d, wave1d } from './pde.solvers.js';
import { decayBateman, schrodinger1d } from './quantum-nuclear.solvers.js';
import { perihelionPrecession, timeDilation } from './relativity.solvers.js';
import { rootBrent, rootNewtonSystem } from './roots.solvers.js';

/** The 32 sealed solvers, in catalogue order. */
export const SOLVERS: readonly SolverDef[] = [
  odeRk4,
  odeDopri45,
  odeStiff,
  nbodyVerlet,
  projectileDrag,
  rootBrent,
  rootNewtonSystem,
  quadGaussKronrod,
  linearLu,
  linearCg,
  eigenSymmetric,
  leastSquaresQr,
  fftSpectrum,
  optimizeNelderMead,
  optimizeBfgs,
  heat1d,
  wave1d,
  poisson2d,
  keplerEquation,
  hohmannTransfer,
  lambertTransfer,
  schrodinger1d,
  colebrook,
  blasius,
  rlcTransient,
  nodalAnalysis,
  epidemicSeir,
  lotkaVolterra,
  lorenzLyapunov,
  decayBateman,
  perihelionPrecession,
  timeDilation,
];
