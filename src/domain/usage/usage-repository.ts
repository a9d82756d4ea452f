import type { LogRow, RowInput, Store } from '../../storage/port.js';

/** One counted call: a solve (target: the solver id) or a compute (targets: the operator chain). */
export interface UsageRow extends LogRow {
  type: 'solve' | 'compute';
  targets: string[];
  at: string;
}

/** Each caller's counted calls: one append-only stream per uid. */
const streamOf = (uid: string) => `usage:${uid}`;

export interface UsageRepository {
  /** Appends one counted call to the caller's stream; resolves once it is durable. */
  record(uid: string, row: RowInput<UsageRow>): Promise<void>;
  /** The caller's counted calls, oldest first, those at or after `fromTick` when given. */
  rows(uid: string, fromTick?: number): Promise<UsageRow[]>;
}

/** The one owner of the `usage:<uid>` streams. */
export function createUsageRepository(store: Store): UsageRepository {
  return {
    async record(uid, row) {
      await store.logs.append<UsageRow>(streamOf(uid), () => row);
    },

    rows: (uid, fromTick) => store.logs.read<UsageRow>(streamOf(uid), fromTick === undefined ? {} : { fromTick }),
  };
}
