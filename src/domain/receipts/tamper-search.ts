import { sameDigest } from '../../lib/hash.js';
import { signedPayload, type Receipt, type SignedField } from './receipt.js';

const HEX = '0123456789abcdefABCDEF';
const SOLVER_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789-_';
const OPERATOR_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.';
const VERSION_CHARS = '0123456789.-abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789.';

export interface TamperFinding {
  field: SignedField | 'hmac';
  /** The value that makes the HMAC valid again (absent for `hmac`). */
  original?: unknown;
}

/**
 * When a receipt's HMAC does not match, finds which single field was altered by one character: it
 * restores each character of each field in turn and keeps the first variant whose HMAC is valid. A match
 * is cryptographic evidence (an HMAC collision is out of reach), not a guess. About 4,000 HMACs at
 * most, so a few milliseconds; returns undefined when no single-character edit explains the mismatch.
 */
export function locateTamper(receipt: Receipt, hmac: (data: string) => string): TamperFinding | undefined {
  const expected = hmac(signedPayload(receipt));
  if (oneCharApart(expected, receipt.hmac)) return { field: 'hmac' };
  const valid = (variant: Receipt) => sameDigest(hmac(signedPayload(variant)), receipt.hmac);

  const stringField = (field: 'solver' | 'solver_version' | 'input_sha256' | 'output_sha256' | 'key_id', alphabet: string) => {
    const value = receipt[field];
    if (typeof value !== 'string') return undefined;
    for (const candidate of substitutions(value, alphabet)) {
      if (valid({ ...receipt, [field]: candidate })) return { field, original: candidate } as TamperFinding;
    }
    return undefined;
  };

  const kind = receipt.kind === 'solve' ? 'compute' : 'solve';
  if (valid({ ...receipt, kind })) return { field: 'kind', original: kind };
  const found =
    stringField('input_sha256', HEX) ??
    stringField('output_sha256', HEX) ??
    stringField('key_id', HEX) ??
    stringField('solver', SOLVER_CHARS) ??
    stringField('solver_version', VERSION_CHARS);
  if (found) return found;
  for (let i = 0; i < receipt.operator_chain.length; i++) {
    for (const candidate of substitutions(receipt.operator_chain[i]!, OPERATOR_CHARS)) {
      const chain = receipt.operator_chain.slice();
      chain[i] = candidate;
      if (valid({ ...receipt, operator_chain: chain })) return { field: 'operator_chain', original: chain };
    }
  }
  for (const field of ['tick', 'phase'] as const) {
    for (const text of substitutions(String(receipt[field]), DIGITS)) {
      const candidate = Number(text);
      if (!Number.isFinite(candidate) || candidate === receipt[field]) continue;
      if (valid({ ...receipt, [field]: candidate })) return { field, original: candidate };
    }
  }
  return undefined;
}

function* substitutions(value: string, alphabet: string): Generator<string> {
  for (let i = 0; i < value.length; i++) {
    for (const ch of alphabet) {
      if (ch !== value[i]) yield value.slice(0, i) + ch + value.slice(i + 1);
    }
  }
}

function oneCharApart(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) diff++;
  return diff === 1;
}
