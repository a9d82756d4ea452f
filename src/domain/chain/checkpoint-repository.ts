import { topByField } from '../../storage/doc-top.js';
import type { LogRow, Store } from '../../storage/port.js';
import type { Checkpoint } from './checkpoint.js';

/** Latest checkpoint of each machine, by slug. */
const CHECKPOINTS = 'checkpoints';

/** A machine's checkpoint history: one row per checkpoint signed. */
function historyStream(slug: string): string {
  return `checkpoints/${slug}`;
}

/** One stored checkpoint in a machine's checkpoint history. */
interface CheckpointRow extends LogRow {
  type: 'checkpoint';
  slug: string;
  head_seq: number;
  head_tick: number;
  head_hash: string;
  signed_tick: number;
  key_id: string;
  signature: string;
}

/** Latest signed first; equal ticks by slug. */
const bySignedDesc = (a: Checkpoint, b: Checkpoint): number => b.signed_tick - a.signed_tick || a.slug.localeCompare(b.slug);

/**
 * The checkpoint aggregate's storage: each machine's latest checkpoint and its history. The only
 * module that names them.
 */
export function createCheckpointRepository(store: Store) {
  return {
    latest: (slug: string): Promise<Checkpoint | undefined> => store.docs.get<Checkpoint>(CHECKPOINTS, slug),
    /** Appends `signed` to the machine's history, then makes it the latest. */
    async record(signed: Checkpoint, keyId: string): Promise<void> {
      await store.logs.append<CheckpointRow>(historyStream(signed.slug), () => ({
        tick: signed.signed_tick,
        type: 'checkpoint',
        slug: signed.slug,
        head_seq: signed.seq,
        head_tick: signed.tick,
        head_hash: signed.head_hash,
        signed_tick: signed.signed_tick,
        key_id: keyId,
        signature: signed.signature,
      }));
      await store.docs.put(CHECKPOINTS, signed.slug, signed);
    },
    /**
     * The `limit` latest checkpoints (latest signed first, equal ticks by slug) among those `keep`
     * accepts: read from the ordered index of `signed_tick`, not the collection.
     */
    newest: (limit: number, keep: (checkpoints: Checkpoint[]) => Promise<boolean[]>): Promise<Checkpoint[]> =>
      topByField<Checkpoint & Record<string, unknown>>(store.docs, CHECKPOINTS, {}, 'signed_tick', limit, bySignedDesc, keep),
    /** The machine's most recent checkpoints, oldest first. */
    async history(slug: string, limit: number): Promise<Checkpoint[]> {
      const rows = await store.logs.read<CheckpointRow>(historyStream(slug), { reverse: true, limit });
      return rows.reverse().map((r) => ({
        slug: r.slug,
        seq: r.head_seq,
        tick: r.head_tick,
        head_hash: r.head_hash,
        signed_tick: r.signed_tick,
        signature: r.signature,
      }));
    },
  };
}

export type CheckpointRepository = ReturnType<typeof createCheckpointRepository>;
