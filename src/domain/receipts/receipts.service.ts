import type { Clock } from '../../lib/clock.js';
import { phaseOf, tickOf, TICK_MS } from '../../lib/clock.js';
import { digestOf, sameDigest } from '../../lib/hash.js';
import type { NodeKeys } from '../identity/node-keys.js';
import { SIGNED_FIELDS, signedPayload, type Receipt, type SignedField } from './receipt.js';
import { locateTamper } from './tamper-search.js';

export type { Receipt } from './receipt.js';

/** What `issueReceipt` binds. `input` and `output` are hashed as canonical JSON; keep them to what a verifier can present again. */
export interface IssueArgs {
  kind: 'solve' | 'compute';
  /** Solver id; required for a solve, absent or null for a compute. */
  solver?: string | null;
  /** Operators applied, KO42 first. */
  chain: string[];
  /** Sealed solver version; null for a compute (or the registry version, if the caller wants it bound). */
  version: string | null;
  input: unknown;
  output: unknown;
}

/** What a receipt is checked against. Each given item adds a check; absent ones are skipped. */
export interface VerifyOptions {
  /** The value that was passed to `issueReceipt` as `input`; compared with `input_sha256`. */
  input?: unknown;
  /** The value that was passed as `output`; compared with `output_sha256`. */
  output?: unknown;
  /** Field values the receipt must carry, e.g. the solver's current chain and version. */
  expect?: Partial<Pick<Receipt, 'kind' | 'solver' | 'operator_chain' | 'solver_version'>>;
  /** Re-runs the work and returns the output to compare with `output_sha256`. */
  recompute?: () => Promise<unknown>;
  /** A check the caller made that failed (e.g. the receipt names a solver this node lacks): the verdict after key and plausibility checks. */
  failed?: ReceiptMismatch;
}

export type ReceiptCheck = 'hmac' | 'input_sha256' | 'output_sha256' | 'recompute';
/** Every check a receipt goes through, in order; the first that fails is the verdict's `failed.check`. */
export type ReceiptCheckName = 'key_id' | 'tick' | 'phase' | 'expected' | 'solver' | ReceiptCheck;

/**
 * A verdict on a well-formed receipt: `valid`, the checks that passed and, when one failed, which
 * check, on which field, and why. A receipt that fails is an answer, not an error.
 */
export interface VerifyResult {
  ok: true;
  valid: boolean;
  /** Checks that passed, in order. */
  checks: ReceiptCheck[];
  /** The first check that failed; null when valid. */
  failed: ReceiptMismatch | null;
  /** `failed.reason` prefixed with the field; null when valid. */
  reason: string | null;
  recomputed: boolean;
  key_id: string;
  age_ticks: number;
  verified_at_tick: number;
}

/** The check that failed, the field it concerns, why, and what was expected against what the receipt says. */
export interface ReceiptMismatch {
  check: ReceiptCheckName;
  field: SignedField | 'hmac';
  reason: string;
  expected?: unknown;
  actual?: unknown;
}

/**
 * Issues and checks proof receipts. Guarantees: a receipt binds its kind, solver, operator chain,
 * version, the SHA-256 of the canonical input and output, the tick and phase of issue and the key id,
 * under HMAC-SHA256 with the node's receipt key (kept in the store, so receipts verify across restarts).
 * A receipt that fails a check gets a verdict (`valid: false`) naming the check and the field.
 */
export interface ReceiptsService {
  issueReceipt(args: IssueArgs): Receipt;
  /** Checks in order: key id, tick and phase plausibility, expected fields, input, output, recompute, HMAC. */
  verifyReceipt(receipt: Receipt, opts?: VerifyOptions): Promise<VerifyResult>;
  /** SHA-256 of the canonical JSON of a value, as receipts use it. */
  digest(value: unknown): string;
}

export function createReceiptsService(deps: { nodeKeys: NodeKeys; clock: Clock }): ReceiptsService {
  const { nodeKeys, clock } = deps;

  return {
    digest: digestOf,

    issueReceipt(args) {
      if (args.kind === 'solve' && !args.solver) throw new Error('a solve receipt needs the solver id');
      // Whole milliseconds, so the phase is always k/777 (the verifier checks that).
      const ms = Math.floor(clock.now());
      const unsigned: Omit<Receipt, 'hmac'> = {
        kind: args.kind,
        solver: args.kind === 'solve' ? args.solver! : null,
        operator_chain: args.chain.slice(),
        solver_version: args.version,
        input_sha256: digestOf(args.input),
        output_sha256: digestOf(args.output),
        tick: tickOf(ms),
        phase: phaseOf(ms),
        key_id: nodeKeys.receiptKeyId,
      };
      return { ...unsigned, hmac: nodeKeys.hmac(signedPayload(unsigned)) };
    },

    async verifyReceipt(receipt, opts = {}) {
      const passed: ReceiptCheck[] = [];
      const now = clock.tick();
      const verdict = (failed: ReceiptMismatch | null, recomputed = false): VerifyResult => ({
        ok: true,
        valid: failed === null,
        checks: passed,
        failed,
        reason: failed ? `${failed.field}: ${failed.reason}` : null,
        recomputed,
        key_id: receipt.key_id,
        age_ticks: Math.max(0, now - receipt.tick),
        verified_at_tick: now,
      });
      if (receipt.key_id !== nodeKeys.receiptKeyId) {
        return verdict({
          check: 'key_id',
          field: 'key_id',
          reason: 'the receipt was issued under another receipt key; only the issuing node can check it',
          expected: nodeKeys.receiptKeyId,
          actual: receipt.key_id,
        });
      }
      if (receipt.tick > now)
        return verdict({
          check: 'tick',
          field: 'tick',
          reason: `the receipt claims tick ${receipt.tick}, after the current tick ${now}`,
          actual: receipt.tick,
        });
      // Phases are whole milliseconds of a 777 ms tick, so phase · 777 is an integer.
      const ms = Math.round(receipt.phase * TICK_MS);
      if (ms / TICK_MS !== receipt.phase)
        return verdict({
          check: 'phase',
          field: 'phase',
          reason: 'the phase is not a whole millisecond of a tick, so it was not issued by this service',
          actual: receipt.phase,
        });
      if (receipt.kind === 'solve' && receipt.solver === null)
        return verdict({ check: 'solver', field: 'solver', reason: 'a solve receipt must name its solver', actual: null });
      if (opts.failed) return verdict(opts.failed);
      for (const [field, value] of Object.entries(opts.expect ?? {}) as Array<[keyof Receipt, unknown]>) {
        if (digestOf(value) !== digestOf(receipt[field])) {
          return verdict({
            check: 'expected',
            field: field as SignedField,
            reason: `expected ${JSON.stringify(value)}, the receipt says ${JSON.stringify(receipt[field])}`,
            expected: value,
            actual: receipt[field],
          });
        }
      }
      if (opts.input !== undefined) {
        const d = digestOf(opts.input);
        if (!sameDigest(d, receipt.input_sha256))
          return verdict({
            check: 'input_sha256',
            field: 'input_sha256',
            reason: 'the SHA-256 of the given inputs differs from the receipt',
            expected: d,
            actual: receipt.input_sha256,
          });
        passed.push('input_sha256');
      }
      if (opts.output !== undefined) {
        const d = digestOf(opts.output);
        if (!sameDigest(d, receipt.output_sha256))
          return verdict({
            check: 'output_sha256',
            field: 'output_sha256',
            reason: 'the SHA-256 of the given output differs from the receipt',
            expected: d,
            actual: receipt.output_sha256,
          });
        passed.push('output_sha256');
      }
      let recomputed = false;
      if (opts.recompute) {
        const d = digestOf(await opts.recompute());
        if (!sameDigest(d, receipt.output_sha256))
          return verdict({
            check: 'recompute',
            field: 'output_sha256',
            reason: 're-running gives an output whose SHA-256 differs from the receipt',
            expected: d,
            actual: receipt.output_sha256,
          });
        recomputed = true;
      }
      if (!sameDigest(nodeKeys.hmac(signedPayload(receipt)), receipt.hmac)) {
        const found = locateTamper(receipt, nodeKeys.hmac);
        if (found) {
          const reason = found.field === 'hmac' ? 'the hmac itself was altered' : `${found.field} was altered: restoring it makes the HMAC valid`;
          return verdict(
            {
              check: 'hmac',
              field: found.field,
              reason,
              ...(found.original !== undefined ? { expected: found.original } : {}),
              actual: found.field === 'hmac' ? receipt.hmac : receipt[found.field],
            },
            recomputed,
          );
        }
        // A one-character change would have been located above; a wider change to any one field lands here too.
        return verdict(
          {
            check: 'hmac',
            field: 'hmac',
            reason: `the HMAC does not match the signed fields (${SIGNED_FIELDS.join(', ')}): at least one of them was changed, or the receipt was signed with another key. Present the original inputs or output to learn whether a digest is the field that changed`,
          },
          recomputed,
        );
      }
      passed.unshift('hmac');
      if (recomputed) passed.push('recompute');
      return verdict(null, recomputed);
    },
  };
}
