import type { LogQuery, LogRow, RowInput, Store } from '../../storage/port.js';
import type { AnchorConfigRecord, AnchoredRecord, AnchorKeyRecord, AnchorView } from './anchor.js';

/** Anchor keys by key id (they hold a secret: never export or log them). */
const ANCHOR_KEYS = 'anchor-keys';
/** Anchoring settings of each machine, by slug. */
const ANCHOR_CONFIGS = 'anchor-configs';
/** Per mother and child: count and latest anchored head (`<mother>|<id_hash>`). */
const ANCHORED = 'anchored';

/** A mother machine's anchors, one row per anchor recorded in it. */
function anchorStream(mother: string): string {
  return `anchors/${mother}`;
}

/** A stored anchor: its row type is `anchor:<id_hash>`, so one child's anchors are read through the log's type index. */
export interface AnchorRow extends LogRow, AnchorView {}

const anchoredId = (mother: string, idHash: string): string => `${mother}|${idHash}`;

/**
 * The anchor aggregate's storage: anchor keys, each machine's anchoring settings, what each mother
 * holds of each child, and each mother's anchor log. The only module that names them.
 */
export function createAnchorRepository(store: Store) {
  const { docs, logs } = store;
  return {
    key: (keyId: string): Promise<AnchorKeyRecord | undefined> => docs.get<AnchorKeyRecord>(ANCHOR_KEYS, keyId),
    insertKey: (key: AnchorKeyRecord): Promise<void> => docs.insert(ANCHOR_KEYS, key.key_id, key),
    /** Marks a key retired at `tick` (nothing when it is missing). */
    retireKey: async (keyId: string, tick: number): Promise<void> => {
      await docs.update<AnchorKeyRecord>(ANCHOR_KEYS, keyId, (k) => (k ? { ...k, retired_tick: tick } : undefined));
    },

    config: (slug: string): Promise<AnchorConfigRecord | undefined> => docs.get<AnchorConfigRecord>(ANCHOR_CONFIGS, slug),
    updateConfig: (slug: string, fn: (current: AnchorConfigRecord | undefined) => AnchorConfigRecord | undefined): Promise<AnchorConfigRecord | undefined> =>
      docs.update<AnchorConfigRecord>(ANCHOR_CONFIGS, slug, fn),
    /** The settings of every machine with anchoring enabled (from the field index; for the background pass). */
    enabledConfigs: async (): Promise<AnchorConfigRecord[]> => (await docs.find<AnchorConfigRecord>(ANCHOR_CONFIGS, { enabled: true })).items,

    anchored: (mother: string, idHash: string): Promise<AnchoredRecord | undefined> => docs.get<AnchoredRecord>(ANCHORED, anchoredId(mother, idHash)),
    updateAnchored: (mother: string, idHash: string, fn: (current: AnchoredRecord | undefined) => AnchoredRecord): Promise<AnchoredRecord | undefined> =>
      docs.update<AnchoredRecord>(ANCHORED, anchoredId(mother, idHash), fn),
    /** What a mother holds: one record per child anchored in it. */
    anchoredIn: async (mother: string): Promise<AnchoredRecord[]> => (await docs.find<AnchoredRecord>(ANCHORED, { mother_slug: mother })).items,
    /** Where the children with these pseudonyms are anchored: one record per mother. */
    async anchoredOf(idHashes: Iterable<string>): Promise<AnchoredRecord[]> {
      const pages = await Promise.all([...new Set(idHashes)].map((idHash) => docs.find<AnchoredRecord>(ANCHORED, { id_hash: idHash })));
      return pages.flatMap((page) => page.items);
    },

    appendAnchor: (mother: string, row: RowInput<AnchorRow>): Promise<AnchorRow> => logs.append<AnchorRow>(anchorStream(mother), () => row),
    readAnchors: (mother: string, query: LogQuery): Promise<AnchorRow[]> => logs.read<AnchorRow>(anchorStream(mother), query),
  };
}

export type AnchorRepository = ReturnType<typeof createAnchorRepository>;
