import type { LogRow, RowInput, Store } from '../../storage/port.js';

/** Counts flushed from memory: per tick and status, since the previous row. */
export interface CountsRow extends LogRow {
  type: 'counts';
  counts: Array<[tick: number, status: number, n: number]>;
}

const stream = (slug: string) => `cdn/${slug}/requests`;

/** The request counts of machines' CDN pages, one append-only log per machine: the only module that names it. */
export interface CdnTrafficRepository {
  /** Appends the row `build` makes from the log's head, under the log's lock; resolves once durable. */
  append(slug: string, build: (head: CountsRow | undefined) => RowInput<CountsRow>): Promise<CountsRow>;
  /** The rows from `fromTick` on, oldest first. */
  since(slug: string, fromTick: number): Promise<CountsRow[]>;
}

export function createCdnTrafficRepository(store: Store): CdnTrafficRepository {
  return {
    append: (slug, build) => store.logs.append<CountsRow>(stream(slug), (head) => build(head)),
    since: (slug, fromTick) => store.logs.read<CountsRow>(stream(slug), { fromTick }),
  };
}
