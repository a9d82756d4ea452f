import { canonicalJson } from '../../lib/canonical-json.js';

/**
 * A proof receipt, as `Receipt` in tools/compute/compute.schemas.ts declares it. The HMAC covers the
 * canonical JSON of every other field, so the receipt can be checked later without the server keeping it.
 */
export interface Receipt {
  kind: 'solve' | 'compute';
  /** Solver id for a solve; null for a compute. */
  solver: string | null;
  /** Operators applied, KO42 first. */
  operator_chain: string[];
  /** Sealed solver version for a solve; null (or the caller's registry version) for a compute. */
  solver_version: string | null;
  input_sha256: string;
  output_sha256: string;
  tick: number;
  phase: number;
  key_id: string;
  hmac: string;
}

/** Every field the HMAC covers, in the order checks report them. */
export const SIGNED_FIELDS = ['kind', 'solver', 'operator_chain', 'solver_version', 'input_sha256', 'output_sha256', 'tick', 'phase', 'key_id'] as const;
export type SignedField = (typeof SIGNED_FIELDS)[number];

/** The exact bytes the HMAC is computed over: canonical JSON of the receipt without `hmac`. */
export function signedPayload(r: Omit<Receipt, 'hmac'> | Receipt): string {
  const { kind, solver, operator_chain, solver_version, input_sha256, output_sha256, tick, phase, key_id } = r;
  return canonicalJson({ kind, solver, operator_chain, solver_version, input_sha256, output_sha256, tick, phase, key_id });
}
