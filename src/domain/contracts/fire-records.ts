import { digestOf } from '../../lib/hash.js';
import { envelopeValue } from '../economy/tally-token.js';
import type { MintRequest } from '../economy/envelope-mint.js';
import type { TransitionRecord } from './contract.types.js';

/*
 * What a fire writes after its transition row, derived from that row alone: the engine writes it live,
 * and the audit recovery (`chain/audit-recovery.service.ts`) writes the same after a crash cut it off.
 */

/** The payload of a fire's `contract.transition` chain row, from its transition row. */
export function fireAuditPayload(row: TransitionRecord): Record<string, unknown> {
  return {
    contract_id: row.contract_id,
    transition_id: row.id,
    from_state: row.from_state,
    to_state: row.to_state,
    proof_digest: row.proof_digest,
    tick_number: row.tick_number,
    due_tick: row.due_tick,
    skipped: row.skipped,
    triggered_by: row.triggered_by,
    version_no: row.version_no,
    emitted: row.emitted,
  };
}

/**
 * The envelope of a successful fire, from its transition row alone (so the audit recovery mints the
 * same one): issued to `envelope_for`, valued by the length of its operator chain.
 */
export function fireEnvelopeRequest(slug: string, row: TransitionRecord, actor: string | null): MintRequest {
  return {
    slug,
    caller: { uid: actor, credential: 'none' },
    issuedTo: row.envelope_for ?? actor,
    kind: 'contract_fire',
    resultDigest: (row.receipt as { output_sha256?: string } | null)?.output_sha256 ?? digestOf(row.result ?? null),
    value: envelopeValue(Math.max(1, row.operators.length - 1), null),
    transitionId: row.id,
  };
}
