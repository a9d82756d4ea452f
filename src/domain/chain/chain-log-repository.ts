import type { LogQuery, LogRow, LogTally, RowInput, Store } from '../../storage/port.js';
import type { ChainRow } from './hash-chain.js';

export interface PayloadRow extends LogRow {
  type: 'payload';
  /** seq of the chain row whose payload this is. */
  row_seq: number;
  transition_id: string;
  alg: 'A256GCM';
  iv: string;
  ct: string;
  tag: string;
}

const CHAIN_PREFIX = 'chain/';

/** A machine's hash chain: one row per audited write. */
function chainStream(slug: string): string {
  return CHAIN_PREFIX + slug;
}

/** Encrypted payloads of a machine's rows, one row per chain row that kept a payload, in chain order. */
function payloadStream(slug: string): string {
  return `payloads/${slug}`;
}

/** The node's log of submissions rejected before they reached any chain. */
const REJECTION_STREAM = 'node/rejections';

/**
 * The chain aggregate's logs: each machine's hash chain and the encrypted payloads of its rows, and
 * the node's rejection log. The only module that names these streams. Appends keep the store's
 * guarantees (see `LogStore.append`): `build` sees the head and the seq the row will get.
 */
export function createChainLogRepository(store: Store) {
  const { logs } = store;
  return {
    append: (slug: string, build: (head: ChainRow | undefined, seq: number) => RowInput<ChainRow>): Promise<ChainRow> =>
      logs.append<ChainRow>(chainStream(slug), build),
    head: (slug: string): Promise<ChainRow | undefined> => logs.head<ChainRow>(chainStream(slug)),
    count: (slug: string): Promise<number> => logs.count(chainStream(slug)),
    /** Rows at tick `fromTick` or later per machine of `slugs` (machines without any left out) and their newest tick, in one read. */
    async tallySince(slugs: readonly string[], fromTick: number): Promise<Map<string, LogTally>> {
      const tallies = await logs.tally(slugs.map(chainStream), fromTick);
      return new Map([...tallies].map(([stream, tally]) => [stream.slice(CHAIN_PREFIX.length), tally]));
    },
    /** Rows in every machine's chain together. */
    totalRows: (): Promise<number> => logs.countUnder(CHAIN_PREFIX),
    row: (slug: string, seq: number): Promise<ChainRow | undefined> => logs.get<ChainRow>(chainStream(slug), seq),
    read: (slug: string, query?: LogQuery): Promise<ChainRow[]> => logs.read<ChainRow>(chainStream(slug), query),

    /** Appends a payload row; called from inside the chain row's `build`, so payloads land in chain order. */
    appendPayload: (slug: string, row: RowInput<PayloadRow>): Promise<PayloadRow> => logs.append<PayloadRow>(payloadStream(slug), () => row),
    payloadCount: (slug: string): Promise<number> => logs.count(payloadStream(slug)),
    payloadAt: (slug: string, seq: number): Promise<PayloadRow | undefined> => logs.get<PayloadRow>(payloadStream(slug), seq),
    readPayloads: (slug: string, query?: LogQuery): Promise<PayloadRow[]> => logs.read<PayloadRow>(payloadStream(slug), query),

    appendRejection: (build: () => RowInput<LogRow>): Promise<LogRow> => logs.append(REJECTION_STREAM, build),
  };
}

export type ChainLogRepository = ReturnType<typeof createChainLogRepository>;
