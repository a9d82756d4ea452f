import type { LowdbStore } from './lowdb/lowdb.store.js';
import type { LogRow, RowInput, Store } from './port.js';

/** Rows read and appended at a time (appends of one stream queued together share group commits). */
const PAGE = 500;

export interface CopyCounts {
  collections: number;
  documents: number;
  streams: number;
  rows: number;
}

/** Whether the store holds any log stream (a target to copy into must not). */
export async function holdsLogs(store: Store): Promise<boolean> {
  return (await store.logs.streams()).length > 0;
}

/**
 * Copies every document of an open lowdb store into `target` with its id, in the order it was stored,
 * then every log row with its seq (rows are re-appended in order; a seq that comes out different aborts,
 * which is what another process writing to the target would cause).
 */
export async function copyDocsAndLogs(source: LowdbStore, target: Store, progress: (line: string) => void): Promise<CopyCounts> {
  const counts: CopyCounts = { collections: 0, documents: 0, streams: 0, rows: 0 };
  for (const collection of await source.docCollections()) {
    // With their ids (the port lists values only), in the order they were stored.
    const entries = await source.docEntries(collection);
    for (const [id, value] of entries) await target.docs.insert(collection, id, value);
    counts.collections += 1;
    counts.documents += entries.length;
  }
  progress(`copied ${counts.documents} documents in ${counts.collections} collections`);

  for (const stream of await source.logs.streams()) {
    for (let from = 0; ; from += PAGE) {
      const rows = await source.logs.read<LogRow>(stream, { fromSeq: from, toSeq: from + PAGE - 1 });
      if (rows.length === 0) break;
      await Promise.all(
        rows.map((row) =>
          target.logs.append(stream, (_head, seq) => {
            if (seq !== row.seq) throw new Error(`log ${stream}: the target gave seq ${seq} to row ${row.seq} (is another process writing?)`);
            const { seq: _seq, ...rest } = row;
            return rest as RowInput<LogRow>;
          }),
        ),
      );
      counts.rows += rows.length;
      if (rows.length < PAGE) break;
    }
    counts.streams += 1;
  }
  progress(`copied ${counts.rows} log rows in ${counts.streams} streams`);
  return counts;
}
