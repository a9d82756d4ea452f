import type { Store } from '../../storage/port.js';

interface PeerReplay {
  id: string;
  tick: number;
}

const PEER_REPLAYS = 'peer-replays';

/** Signed peer calls already used, kept while their tick is inside the replay window: the only module that names their collection. */
export interface PeerReplayRepository {
  /** Records a use; fails with `DuplicateKeyError` when the same call was used already. */
  insert(id: string, tick: number): Promise<void>;
  /**
   * Forgets the uses older than `tick`. Reads the whole collection, which every call prunes this way,
   * so it holds only the calls of the last replay window.
   */
  pruneBefore(tick: number): Promise<void>;
}

export function createPeerReplayRepository(store: Store): PeerReplayRepository {
  return {
    insert: (id, tick) => store.docs.insert<PeerReplay>(PEER_REPLAYS, id, { id, tick }),
    async pruneBefore(tick) {
      const stale = await store.docs.list<PeerReplay>(PEER_REPLAYS, (r) => r.tick < tick);
      for (const r of stale) await store.docs.delete(PEER_REPLAYS, r.id);
    },
  };
}
