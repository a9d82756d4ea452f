import { errors } from '../../errors.js';
import { DuplicateKeyError } from '../../storage/port.js';
import { type EnvelopeLock, type EnvelopeLockRepository } from './envelope-lock-repository.js';
import { parseEnvelopeId, type EnvelopeRow } from './tally-token.js';
import type { TallyRepository } from './tally-repository.js';

export type { EnvelopeLock } from './envelope-lock-repository.js';

export interface OwnedEnvelope {
  row: EnvelopeRow;
  lock: EnvelopeLock | undefined;
}

/**
 * Reads envelopes and holds their locks. Envelope rows are immutable log rows; a lock is a small
 * document that exists only while the envelope is bonded or staked, so the lock collection stays as
 * small as the number of envelopes locked right now. One lock per envelope: taking it is an insert,
 * so two concurrent bonds or stakes of one envelope cannot both succeed.
 */
export interface EnvelopeLedger {
  /** The envelope row, or undefined when no such envelope exists. */
  get(id: string): Promise<EnvelopeRow | undefined>;
  lockOf(id: string): Promise<EnvelopeLock | undefined>;
  /** Locks of one machine's envelopes, by token id. */
  locksOf(slug: string): Promise<Map<string, EnvelopeLock>>;
  /** The envelopes, each issued to `uid`; NOT_FOUND names the first that is missing or someone else's. */
  owned(ids: readonly string[], uid: string): Promise<OwnedEnvelope[]>;
  /** Locks every envelope or none; CONFLICT names the envelope already locked and by what. */
  lockAll(
    envelopes: readonly EnvelopeRow[],
    lock: Omit<EnvelopeLock, 'token_id' | 'machine_slug' | 'value' | 'owner_uid'>,
    owner: string,
  ): Promise<EnvelopeLock[]>;
  /** Removes the locks of `kind` held for `ref`; returns the ids freed. */
  unlock(ids: readonly string[], kind: EnvelopeLock['kind'], ref: string): Promise<string[]>;
}

export function createEnvelopeLedger(deps: { tallyRecords: TallyRepository; envelopeLocks: EnvelopeLockRepository }): EnvelopeLedger {
  const { tallyRecords, envelopeLocks } = deps;

  const get = async (id: string): Promise<EnvelopeRow | undefined> => {
    const parsed = parseEnvelopeId(id);
    if (!parsed) return undefined;
    const slug = await tallyRecords.slugOfHandle(parsed.handle);
    if (slug === undefined) return undefined;
    const row = await tallyRecords.envelope(slug, parsed.seq);
    return row && row.token_id === id ? row : undefined;
  };

  return {
    get,
    lockOf: (id) => envelopeLocks.byTokenId(id),
    async locksOf(slug) {
      return new Map((await envelopeLocks.bySlug(slug)).map((l) => [l.token_id, l]));
    },
    async owned(ids, uid) {
      const unique = [...new Set(ids)];
      if (unique.length !== ids.length) throw errors.validation('An envelope id is listed twice; list each envelope once');
      const out: OwnedEnvelope[] = [];
      for (const id of unique) {
        const row = await get(id);
        if (!row || row.issued_to !== uid) {
          throw errors.notFound(`No envelope "${id}" issued to you; list yours with GET /api/chain/{slug}/tally/tokens`, { envelope_id: id });
        }
        out.push({ row, lock: await envelopeLocks.byTokenId(id) });
      }
      return out;
    },
    async lockAll(envelopes, lock, owner) {
      const taken: EnvelopeLock[] = [];
      for (const row of envelopes) {
        const record: EnvelopeLock = { ...lock, token_id: row.token_id, machine_slug: row.machine_slug, value: row.value, owner_uid: owner };
        try {
          await envelopeLocks.insert(record);
          taken.push(record);
        } catch (err) {
          for (const t of taken) await envelopeLocks.delete(t.token_id);
          if (!(err instanceof DuplicateKeyError)) throw err;
          const held = await envelopeLocks.byTokenId(row.token_id);
          throw lockedError(row.token_id, held);
        }
      }
      return taken;
    },
    async unlock(ids, kind, ref) {
      const freed: string[] = [];
      for (const id of ids) {
        // Compare-and-delete: a lock taken for something else between a read and a delete is never removed.
        if (await envelopeLocks.deleteIf(id, (held) => held.kind === kind && held.ref === ref)) freed.push(id);
      }
      return freed;
    },
  };
}

/** CONFLICT for an envelope that is already bonded or staked. */
export function lockedError(id: string, held: EnvelopeLock | undefined) {
  const why = held?.kind === 'vote' ? `locked for the vote on proposal ${held.ref}` : held ? `bonded to seat ${held.ref}` : 'locked';
  return errors.conflict(`Envelope "${id}" is ${why}; it moves again once that ${held?.kind === 'vote' ? 'vote is resolved' : 'bond is released'}`, {
    envelope_id: id,
    reason: held?.kind === 'vote' ? 'envelope_locked_in_vote' : 'envelope_bonded',
  });
}
