import { SOLVERS } from './catalog/index.js';
import { MAX_ELEMENTS } from './inputs.js';
import type { InputSpec, SolverDef } from './solver-def.js';

/** Longest JSON text of one finite double with its separator: `-2.2250738585072014e-308,`. */
const NUMBER_BYTES = 25;
/** A string input, a list item (a name, an expression, a circuit element) or a scalar's worst case. */
const ITEM_BYTES = 4096;
/** Named parameters and everything around the inputs: option names, the `inputs` envelope, whitespace. */
const ENVELOPE_BYTES = 64 * 1024;

function inputBytes(spec: InputSpec): number {
  const items = spec.max_items ?? 1;
  switch (spec.type) {
    case 'matrix':
      return Math.min(items * items, MAX_ELEMENTS) * NUMBER_BYTES + items * 2;
    case 'vector':
      return items * NUMBER_BYTES;
    case 'list':
      return items * ITEM_BYTES;
    case 'object':
      return ENVELOPE_BYTES;
    default:
      return ITEM_BYTES;
  }
}

/** Bytes of the largest request body a solver's declared inputs allow, every number written at full length. */
export function solveBodyBytes(solver: SolverDef): number {
  return ENVELOPE_BYTES + [...solver.inputs, ...solver.options].reduce((sum, spec) => sum + inputBytes(spec), 0);
}

/**
 * The request body limit of `POST /api/solvers/{id}/solve`: the largest input any sealed solver
 * declares must be accepted (linear-lu's 400×400 matrix is about 3-4 MB of JSON), rounded up to a MiB.
 */
export const SOLVE_BODY_BYTES = Math.ceil(Math.max(...SOLVERS.map(solveBodyBytes)) / 2 ** 20) * 2 ** 20;
