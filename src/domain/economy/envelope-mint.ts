import type { Clock } from '../../lib/clock.js';
import type { Caller } from '../identity/caller.js';
import type { LockStore } from '../../storage/port.js';
import type { ChainService } from '../chain/chain.service.js';
import type { MachinesService } from '../chain/machines.service.js';
import type { NodeKeys } from '../identity/node-keys.js';
import { hasRole } from '../identity/roles.js';
import { envelopeHash, envelopeId, remainingAt, type EnvelopeRow, type EnvelopeSource } from './tally-token.js';
import type { TallyRepository } from './tally-repository.js';
import type { MachineRepository } from '../chain/machine-repository.js';

export interface MintRequest {
  /** Machine whose supply the envelope draws on; when absent it is derived from the caller (see `mintEnvelope`). */
  slug?: string | undefined;
  caller: Caller;
  /** Who the envelope is issued to; default `caller.uid` (e.g. a scheduled contract fire passes the contract's creator). */
  issuedTo?: string | null | undefined;
  kind: EnvelopeSource;
  /** SHA-256 (hex) of the result the envelope stands for, e.g. a receipt's `output_sha256`. */
  resultDigest: string;
  value: number;
  /** The contract fire the envelope is for: recorded on the row, so a fire is never given two. */
  transitionId?: string;
  /** Minted late by the audit recovery (recorded on the row). */
  recovered?: true;
}

export type MintSkipReason = 'no_machine' | 'no_token' | 'machine_inactive' | 'supply_exhausted' | 'no_value' | 'error';

export type MintOutcome =
  { minted: true; envelope: EnvelopeRow; tokens_remaining: number } | { minted: false; reason: MintSkipReason; machine_slug: string | null };

export class SupplyExhausted extends Error {}

export interface EnvelopeMinterDeps {
  tallyRecords: TallyRepository;
  machineRecords: MachineRepository;
  locks: LockStore;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
  nodeKeys: NodeKeys;
  onError?: (err: unknown) => void;
  /**
   * Id of this process, stamped on each envelope row (`writer`) so the audit recovery can tell an
   * envelope whose `tally.minted` row a crash cut off from one whose writer is still appending it.
   */
  writer?: () => string | undefined;
}

/**
 * Mints envelopes. Never throws: a result is never refused because its envelope could not be minted
 * (the outcome says why not), so call sites need no error handling.
 */
export function createEnvelopeMinter(deps: EnvelopeMinterDeps): (req: MintRequest) => Promise<MintOutcome> {
  const { tallyRecords, machineRecords, locks, clock, chain, machines, nodeKeys } = deps;

  /**
   * The machine an envelope without an explicit slug belongs to: the machine of a machine or
   * developer key (when the key has at least the operator role there); for a user key, the caller's
   * oldest active machine that has a token; otherwise none (anonymous callers, users without a
   * machine or a token), and no envelope is minted.
   */
  async function machineFor(caller: Caller): Promise<string | undefined> {
    if (caller.uid === null) return undefined;
    if (caller.machine !== undefined) {
      const role = await machines.roleOf(caller.machine, caller);
      return role !== undefined && hasRole(role, 'operator') ? caller.machine : undefined;
    }
    const owned = await machineRecords.ownedBy(caller.uid, 'active');
    owned.sort((a, b) => a.genesis_tick - b.genesis_tick || (a.slug < b.slug ? -1 : 1));
    for (const m of owned) if (await tallyRecords.token(m.slug)) return m.slug;
    return undefined;
  }

  async function mint(req: MintRequest): Promise<MintOutcome> {
    const slug = req.slug ?? (await machineFor(req.caller));
    if (slug === undefined) return { minted: false, reason: 'no_machine', machine_slug: null };
    if (!(req.value > 0) || !Number.isFinite(req.value)) return { minted: false, reason: 'no_value', machine_slug: slug };
    const machine = await machineRecords.get(slug);
    if (!machine) return { minted: false, reason: 'no_machine', machine_slug: null };
    if (machine.status !== 'active') return { minted: false, reason: 'machine_inactive', machine_slug: slug };
    const token = await tallyRecords.token(slug);
    if (!token) return { minted: false, reason: 'no_token', machine_slug: slug };
    const writer = deps.writer?.();
    // The envelope and its `tally.minted` row commit together (on PostgreSQL in the lock's transaction;
    // inside a fire's contract lock, in the fire's): another process's audit recovery never finds the
    // envelope without its row while this process appends it, whether or not this process still holds
    // its writer claim (`core-writer:<id>`, which its connection can lose), so the row is never doubled.
    return locks.run(`core-mint:${slug}`, async (): Promise<MintOutcome> => {
      let remaining = 0;
      let envelope: EnvelopeRow;
      try {
        envelope = await tallyRecords.appendEnvelope(slug, (head, seq) => {
          // Checked under the stream's lock, so concurrent mints cannot together pass the ceiling.
          const tick = Math.max(clock.tick(), head?.tick ?? token.genesis_tick);
          const minted = head?.minted_total ?? 0;
          const available = remainingAt(token, minted, tick);
          if (req.value > available) throw new SupplyExhausted();
          remaining = available - req.value;
          const fields = {
            token_id: envelopeId(token.handle, seq),
            machine_slug: slug,
            tick,
            value: req.value,
            source: req.kind,
            result_digest: req.resultDigest.toLowerCase(),
            issued_to: req.issuedTo === undefined ? req.caller.uid : req.issuedTo,
          };
          const token_hash = envelopeHash(fields);
          return {
            type: 'envelope',
            ...fields,
            token_hash,
            signature: nodeKeys.sign(token_hash),
            minted_total: minted + req.value,
            created_at: new Date(clock.now()).toISOString(),
            ...(writer !== undefined ? { writer } : {}),
            ...(req.transitionId !== undefined ? { transition_id: req.transitionId } : {}),
            ...(req.recovered ? { recovered: true as const } : {}),
          };
        });
      } catch (err) {
        if (err instanceof SupplyExhausted) return { minted: false, reason: 'supply_exhausted', machine_slug: slug };
        deps.onError?.(err);
        return { minted: false, reason: 'error', machine_slug: slug };
      }
      try {
        await chain.append(machine, {
          type: 'tally.minted',
          actor_uid: req.caller.uid,
          transition_id: envelope.token_id,
          payload_digest: envelope.token_hash,
        });
      } catch (err) {
        // The envelope stands on its own signature; a missing audit row is logged, not undone.
        deps.onError?.(err);
      }
      return { minted: true, envelope, tokens_remaining: remaining };
    });
  }

  return async (req) => {
    try {
      return await mint(req);
    } catch (err) {
      deps.onError?.(err);
      return { minted: false, reason: 'error', machine_slug: req.slug ?? null };
    }
  };
}
