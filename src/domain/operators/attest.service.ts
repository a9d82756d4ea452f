import { CoreError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { digestOf } from '../../lib/hash.js';
import type { NodeKeys } from '../identity/node-keys.js';
import { claimSignatureValid, parsePublicKey, rawPublicKey, type Claim } from './claims.js';
import { evaluateChain } from './operator-chain.js';
import type { OperatorsService } from './operators.service.js';

export type Verdict = 'agree' | 'disagree' | 'unverifiable';

export interface AttestAnswer {
  ok: true;
  verdict: Verdict;
  reason: string | null;
  signature_valid: boolean;
  recomputed: { value: number; unit: string } | null;
  attestation: { verdict: Verdict; claim_sha256: string; tick: number; signature: string; public_key: string };
}

export interface AttestService {
  /**
   * Checks a claim signed by another node: the Ed25519 signature over the canonical claim, then the
   * value recomputed here from the claim's operators and inputs at the claim's tick and phase.
   * agree: signature valid and the same unit and value (relative difference at most 1e-9);
   * disagree: signature valid but another value or unit; unverifiable: bad signature, malformed claim,
   * an operator unknown here, or inputs the operators refuse. The verdict is signed by this node: the
   * signature covers the canonical JSON of `{ claim_sha256, tick, verdict }`.
   */
  attest(input: { claim: Record<string, unknown>; signature: string; public_key: string }): Promise<AttestAnswer>;
}

const TOLERANCE = 1e-9;

export function createAttestService(deps: { clock: Clock; nodeKeys: NodeKeys; operators: OperatorsService }): AttestService {
  return {
    async attest({ claim, signature, public_key }) {
      const key = parsePublicKey(public_key);
      const signatureValid = claimSignatureValid(claim, signature, key);
      let verdict: Verdict = 'unverifiable';
      let reason: string | null;
      let recomputed: AttestAnswer['recomputed'] = null;
      const shape = signatureValid ? claimProblem(claim) : 'the signature does not verify against public_key over the canonical JSON of the claim';
      if (shape) {
        reason = shape;
      } else {
        const c = claim as unknown as Claim;
        const unknown = c.operators.filter((id) => !deps.operators.exists(id));
        if (unknown.length > 0) {
          reason = `operator ${unknown.join(', ')} is not in this node's registry`;
        } else {
          try {
            const outcome = await evaluateChain(deps.operators, c.operators, c.inputs, { tick: c.tick, phase: c.phase });
            recomputed = { value: outcome.value, unit: outcome.unit };
            ({ verdict, reason } = compare(c, recomputed, deps.operators.registryVersion()));
          } catch (err) {
            if (!(err instanceof CoreError) || err.code === 'INTERNAL') throw err;
            reason = `recomputing failed: ${err.message}`;
          }
        }
      }
      const claimSha = digestOf(claim);
      const tick = deps.clock.tick();
      return {
        ok: true,
        verdict,
        reason,
        signature_valid: signatureValid,
        recomputed,
        attestation: {
          verdict,
          claim_sha256: claimSha,
          tick,
          signature: deps.nodeKeys.sign(canonicalJson({ claim_sha256: claimSha, tick, verdict })),
          public_key: rawPublicKey(deps.nodeKeys),
        },
      };
    },
  };
}

function compare(claim: Claim, here: { value: number; unit: string }, registryVersion: string): { verdict: Verdict; reason: string | null } {
  const note = claim.registry_version === registryVersion ? '' : ' (the claim was made with another registry version)';
  if (claim.unit !== here.unit) return { verdict: 'disagree', reason: `unit differs: the claim says "${claim.unit}", this node gets "${here.unit}"${note}` };
  const diff = Math.abs(claim.value - here.value);
  const scale = Math.max(Math.abs(claim.value), Math.abs(here.value));
  if (diff <= TOLERANCE * scale) return { verdict: 'agree', reason: note ? note.trim().slice(1, -1) : null };
  return { verdict: 'disagree', reason: `value differs: the claim says ${claim.value}, this node gets ${here.value}${note}` };
}

function claimProblem(c: Record<string, unknown>): string | undefined {
  if (!Array.isArray(c.operators) || c.operators.length === 0 || !c.operators.every((o) => typeof o === 'string')) {
    return 'claim.operators must be a non-empty array of operator ids';
  }
  if (!c.inputs || typeof c.inputs !== 'object' || Array.isArray(c.inputs) || !Object.values(c.inputs).every((v) => typeof v === 'number')) {
    return 'claim.inputs must be an object of numbers';
  }
  if (typeof c.value !== 'number' || typeof c.unit !== 'string') return 'claim.value must be a number and claim.unit a string';
  if (!Number.isInteger(c.tick) || (c.tick as number) < 0) return 'claim.tick must be a non-negative integer';
  if (typeof c.phase !== 'number' || c.phase < 0 || c.phase >= 1) return 'claim.phase must be a number in [0, 1)';
  return undefined;
}
