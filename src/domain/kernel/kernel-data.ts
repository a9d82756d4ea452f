import { ALPHA, PULSE_HZ, TICK_MS } from '../../lib/clock.js';

/** Timing constants of the node: one tick is 777 ms, the pulse is 1.287 Hz. */
export const TIMING_CONSTANTS: Record<string, number> = {
  tick_ms: TICK_MS,
  tick_s: TICK_MS / 1000,
  pulse_hz: PULSE_HZ,
  mz_ms: TICK_MS / 1000,
  alpha: ALPHA,
};

/** Physical constants the kernel lists, by the kernel's key and the constants-table key that holds it. */
export const PHYSICAL_CONSTANT_KEYS: Array<[string, string]> = [
  ['c', 'c'],
  ['h', 'h'],
  ['hbar', 'hbar'],
  ['G', 'G'],
  ['k_B', 'k_B'],
  ['e', 'e'],
  ['N_A', 'N_A'],
  ['m_e', 'm_e'],
  ['m_p', 'm_p'],
  ['R', 'R'],
  ['epsilon_0', 'epsilon_0'],
  ['mu_0', 'mu_0'],
  ['sigma_SB', 'sigma'],
  ['alpha_fs', 'alpha'],
];

export const EQUATIONS = [
  { key: 'tick', name: 'Tick number', expression: 'tick = floor(unix_ms / 777)' },
  { key: 'phase', name: 'Phase within a tick', expression: 'phase = (unix_ms mod 777) / 777, in [0, 1)' },
  { key: 'pulse', name: 'Pulse modulation R(t)', expression: 'R(t) = 1 + alpha * sin(2 * pi * 1.287 * t), alpha = 1e-3, t in seconds' },
  {
    key: 'ko42',
    name: 'KO42 substrate operator (always first in a chain)',
    expression:
      "R(t) = 1 + alpha * sin(2 * pi * 1.287 * t), t = (tick + phase) * 0.777 s; reported as KO42's own result, it stamps the instant and does not scale the chain's value",
  },
  { key: 'digest', name: 'Receipt digests', expression: 'input_sha256 = SHA-256(canonical_json(input)); output_sha256 = SHA-256(canonical_json(output))' },
  { key: 'receipt', name: 'Receipt HMAC', expression: 'hmac = HMAC-SHA256(receipt_key, canonical_json(receipt without hmac))' },
  { key: 'chain_row', name: 'Chain row hash', expression: 'state_hash = SHA-256(canonical_json(row without state_hash)); prev_hash = previous row state_hash' },
  {
    key: 'canonical_json',
    name: 'Canonical JSON',
    expression: 'object keys sorted by code point, no whitespace, undefined members dropped, non-finite numbers refused',
  },
];

export const MANDATE = [
  {
    step: 1,
    title: 'Select',
    text: 'Pick the operation from the catalogue, never from memory: operators with GET /api/operators?q=... (core_operators), solvers with GET /api/solvers?q=... (core_solvers).',
  },
  {
    step: 2,
    title: 'Bind',
    text: 'Read the chosen operator or solver (its inputs, units, bounds and example) and take physical constants from GET /api/constants (core_constants).',
  },
  {
    step: 3,
    title: 'Validate',
    text: 'Convert every value to the declared SI unit and keep it inside its bounds; check the example runs first when unsure of the input shape.',
  },
  {
    step: 4,
    title: 'Compute',
    text: 'POST /api/compute with 1 to 3 operators (KO42 is prepended) or POST /api/solvers/{id}/solve. Let the service compute; do not substitute your own arithmetic.',
  },
  {
    step: 5,
    title: 'Verify',
    text: 'Keep the receipt. POST /api/proof/verify checks it, and with recompute: true re-runs the work and compares the output digest.',
  },
  { step: 6, title: 'Stamp', text: 'Every result carries the tick and phase at which it was produced; quote them with the result.' },
  {
    step: 7,
    title: 'Return',
    text: 'Report the value with its unit, its error estimate or uncertainty, and the receipt (or its hmac). Say plainly when the service refused an input and why.',
  },
];

export const RULES = [
  { key: 'ko42_first', rule: 'Every operator chain starts with KO42; the server prepends it. A compute takes at most 3 operators beyond it.' },
  { key: 'si_units', rule: 'Inputs are plain numbers in the SI unit each operator or solver declares; there is no unit conversion on input.' },
  {
    key: 'refusals',
    rule: 'Missing, unknown or mistyped inputs are 400 VALIDATION_FAILED; values out of range or a method that does not converge are 422 UNPROCESSABLE with the reason. No result is ever NaN or Infinity.',
  },
  {
    key: 'sealed',
    rule: 'Solvers are sealed: the same inputs and solver version give bit-identical results. The version is in every solve answer and receipt.',
  },
  {
    key: 'receipts',
    rule: 'Receipts are HMAC-SHA256 over the canonical JSON of kind, solver, operator chain, version, input and output digests, tick, phase and key id. Only this node can check them; any altered field is refused naming it.',
  },
  { key: 'usage', rule: 'Solves and computes made with a key are counted per caller: GET /api/compute/usage.' },
  { key: 'errors', rule: 'Errors are { error: { code, message, details, request_id } }; over MCP an isError result whose text starts with the code.' },
  { key: 'time', rule: 'Time is counted in ticks of 777 ms (1.287 Hz); GET /api/pulse reads the clock.' },
];
