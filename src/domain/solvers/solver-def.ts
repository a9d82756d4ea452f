import { errors } from '../../errors.js';

/** Kinds of solver input. `vector` is an array of numbers, `matrix` an array of equal-length number rows,
 * `list` an array of strings or objects described by the input, `object` a map of named numbers. */
export type InputType = 'number' | 'integer' | 'boolean' | 'string' | 'vector' | 'matrix' | 'list' | 'object';

/** One declared input or option of a solver, as `GET /api/solvers/{id}` shows it. */
export interface InputSpec {
  name: string;
  description: string;
  /** SI unit, empty for dimensionless. */
  unit: string;
  type: InputType;
  required: boolean;
  /** Inclusive bounds of a number, or of every element of a vector or matrix. */
  min: number | null;
  max: number | null;
  default?: unknown;
  /** Allowed values of a string input. */
  enum?: string[];
  /** Bounds on the length of a vector or list, or the row count of a matrix. */
  min_items?: number;
  max_items?: number;
}

/** What a solver's `run` receives besides its inputs: cooperative progress and cancellation. */
export interface RunControl {
  /**
   * Yields to the event loop when the solve has held it for a while, reports progress, and throws
   * when the caller cancelled. Call it every few hundred steps of a long loop.
   */
  checkpoint(done: number, total: number, message?: string): Promise<void>;
}

/** What a solver returns. `result` is hashed into the receipt; everything in it must be finite. */
export interface SolverOutcome {
  result: unknown;
  converged: boolean;
  iterations: number | null;
  /** The method's own error estimate, null when it gives none. */
  error_estimate: number | null;
}

/** Validated inputs with defaults applied; accessors are typed casts. */
export interface Args {
  num(name: string): number;
  int(name: string): number;
  bool(name: string): boolean;
  str(name: string): string;
  vec(name: string): number[];
  mat(name: string): number[][];
  list<T = unknown>(name: string): T[];
  obj(name: string): Record<string, number>;
  has(name: string): boolean;
  /** The raw values, for solvers that pass inputs through. */
  raw: Record<string, unknown>;
}

/**
 * A sealed solver. `version` changes whenever a change to the code could change any output bit; the
 * same inputs and version give the same result.
 */
export interface SolverDef {
  id: string;
  name: string;
  domain: string;
  method: string;
  /** Registry operators the solver composes, `KO42` first. */
  operator_chain: string[];
  unit: string;
  version: string;
  description: string;
  inputs: InputSpec[];
  options: InputSpec[];
  example: Record<string, unknown>;
  run(inputs: Args, options: Args, ctl: RunControl): Promise<SolverOutcome>;
}

/** Builds an input spec with the usual defaults (required, unbounded, dimensionless). */
export function input(name: string, type: InputType, description: string, extra: Partial<Omit<InputSpec, 'name' | 'type' | 'description'>> = {}): InputSpec {
  return {
    name,
    description,
    unit: extra.unit ?? '',
    type,
    required: extra.required ?? extra.default === undefined,
    min: extra.min ?? null,
    max: extra.max ?? null,
    ...(extra.default !== undefined ? { default: extra.default } : {}),
    ...(extra.enum ? { enum: extra.enum } : {}),
    ...(extra.min_items !== undefined ? { min_items: extra.min_items } : {}),
    ...(extra.max_items !== undefined ? { max_items: extra.max_items } : {}),
  };
}

/** The common method options. */
export const TOLERANCE = (dflt: number, min = 1e-14) =>
  input('tolerance', 'number', 'Target relative tolerance of the method', { default: dflt, min, max: 0.1 });
export const MAX_ITERATIONS = (dflt: number, max: number) =>
  input('max_iterations', 'integer', 'Iteration or step budget; the solve is refused when it runs out', { default: dflt, min: 1, max });

/** A domain failure of the solve (out of range, no convergence): 422 with the reason. */
export function unprocessable(message: string, details?: unknown): never {
  throw errors.unprocessable(message, details);
}

/** A malformed input: 400 naming it. */
export function invalid(name: string, message: string): never {
  throw errors.validation(`Invalid input "${name}": ${message}`, { input: name });
}
