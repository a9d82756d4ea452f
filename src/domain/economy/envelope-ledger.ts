import { errors } from '../../errors.js';
import { DuplicateKeyError, type Store } from '../../storage/port.js';
import { TALLY_HANDLES, parseEnvelopeId, tallyStream, type EnvelopeRow } from './tally-token.js';

export const ENVELOPE_LOCKS = 'envelope-locks';

/** Why an envelope cannot move: bonded to a contribution seat, or staked on a community vote. */
export interface EnvelopeLock {
  token_id: string;
  machine_slug: string;
  owner_uid: string;
  value: number;
  kind: 'bond' | 'vote';
  /** Seat id for a bond, proposal id for a vote. */
  ref: string;
  tick: number;
}

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
  lockAll(envelopes: readonly EnvelopeRow[], lock: Omit<EnvelopeLock, 'token_id' | 'machine_slug' | 'value' | 'owner_uid'>, owner: string): Promise<EnvelopeLock[]>;
  /** Removes the locks of `kind` held for `ref`; returns the ids freed. */
  unlock(ids: readonly string[], kind: EnvelopeLock['kind'], ref: string): Promise<string[]>;
}

export function createEnvelopeLedger(deps: { store: Store }): EnvelopeLedger {
  const { store } = deps;

  const get = async (id: string): Promise<EnvelopeRow | undefined> => {
    const parsed = parseEnvelopeId(id);
    if (!parsed) return undefined;
    const slug = (await store.docs.get<{ slug: string }>(TALLY_HANDLES, parsed.handle))?.slug;
    if (slug === undefined) return undefined;
    const row = await store.logs.get<EnvelopeRow>(tallyStream(slug), parsed.seq);
    return row && row.token_id === id ? row : undefined;
  };

  return {
    get,
    lockOf: (id) => store.docs.get<EnvelopeLock>(ENVELOPE_LOCKS, id),
    async locksOf(slug) {
      const locks = await store.docs.list<EnvelopeLock>(ENVELOPE_LOCKS, (l) => l.machine_slug === slug);
      return new Map(locks.map((l) => [l.token_id, l]));
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
        out.push({ row, lock: await store.docs.get<EnvelopeLock>(ENVELOPE_LOCKS, id) });
      }
      return out;
    },
    async lockAll(envelopes, lock, owner) {
      const taken: EnvelopeLock[] = [];
      for (const row of envelopes) {
        const record: EnvelopeLock = { ...lock, token_id: row.token_id, machine_slug: row.machine_slug, value: row.value, owner_uid: owner };
        try {
          await store.docs.insert(ENVELOPE_LOCKS, row.token_id, record);
          taken.push(record);
        } catch (err) {
          for (const t of taken) await store.docs.delete(ENVELOPE_LOCKS, t.token_id);
          if (!(err instanceof DuplicateKeyError)) throw err;
          const held = await store.docs.get<EnvelopeLock>(ENVELOPE_LOCKS, row.token_id);
          throw lockedError(row.token_id, held);
        }
      }
      return taken;
    },
    async unlock(ids, kind, ref) {
      const freed: string[] = [];
      for (const id of ids) {
        // Compare-and-delete: a lock taken for something else between a read and a delete is never removed.
        if (await store.docs.deleteIf<EnvelopeLock>(ENVELOPE_LOCKS, id, (held) => held.kind === kind && held.ref === ref)) freed.push(id);
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
