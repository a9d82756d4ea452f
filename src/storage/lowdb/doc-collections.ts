import { mkdir, readdir } from 'node:fs/promises';
import { checkFind, checkOrder, decodeOrderCursor, encodeOrderCursor } from '../doc-where.js';
import { DuplicateKeyError, InvalidCursorError, type DocStore } from '../port.js';
import { openCursor, loadCursorKey, sealCursor } from './cursor-seal.js';
import { DocCollection } from './doc-collection.js';
import type { DiskMonitor } from './disk-monitor.js';
import type { LowdbWarning } from './log-file.js';

const COLLECTION_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface DocCollectionsOptions {
  dir: string;
  /** The file holding the key `find` cursors are sealed with (see `cursor-seal.ts`). */
  cursorKeyFile: string;
  fsync: boolean;
  assertOpen: () => void;
  onWarning?: ((warning: LowdbWarning) => void) | undefined;
  /** Counts the bytes written and turns disk faults into the store's refusal. */
  disk?: DiskMonitor;
}

export interface DocCollections {
  api: DocStore;
  /** Names of the collections stored in the folder. */
  names(): Promise<string[]>;
  /** Every record of a collection with its id, in insertion order (for copying the store elsewhere). */
  entries(collection: string): Promise<Array<[id: string, value: object]>>;
  open(): Promise<void>;
  /** Waits for queued writes, then forgets the cached collections. */
  close(): Promise<void>;
}

/** Values are stored as JSON, so what a caller gets back now equals what it gets after a restart. */
function toJson(value: unknown): { text: string; stored: object } {
  const text = JSON.stringify(value) as string | undefined;
  const stored = text === undefined ? undefined : (JSON.parse(text) as unknown);
  if (typeof stored !== 'object' || stored === null) throw new TypeError('a document must be a JSON object');
  return { text: text!, stored };
}

function copy<T>(value: object): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Documents as lowdb snapshots plus JSON-lines journals in `dir` (see `DocCollection`). */
export function createDocCollections(options: DocCollectionsOptions): DocCollections {
  const { dir, fsync, assertOpen } = options;
  let collections = new Map<string, Promise<DocCollection>>();
  let cursorKey: Buffer | undefined;

  /** The ordinal a cursor points after: its record's while that exists, else the one it holds. */
  function afterOrd(collection: string, c: DocCollection, cursor: string): number {
    const opened = openCursor(cursorKey!, collection, cursor);
    if (opened === undefined) throw new InvalidCursorError(cursor);
    return c.records.get(opened.id)?.ord ?? opened.ord;
  }

  function load(name: string): Promise<DocCollection> {
    assertOpen();
    if (!COLLECTION_NAME.test(name)) throw new TypeError(`invalid collection name: ${JSON.stringify(name)}`);
    let loading = collections.get(name);
    if (loading === undefined) {
      const created = DocCollection.load(dir, name, fsync, options.onWarning, options.disk);
      loading = created;
      collections.set(name, created);
      created.catch(() => collections.get(name) === created && collections.delete(name));
    }
    return loading;
  }

  function remove(name: string, id: string, matches: (current: object) => boolean): Promise<boolean> {
    return load(name).then((c) =>
      c.mutate(() => {
        const current = c.records.get(id);
        if (current === undefined || !matches(current.value)) return { result: false };
        return { result: true, write: c.delete(id) };
      }),
    );
  }

  const api: DocStore = {
    async get<T extends object>(collection: string, id: string) {
      const entry = (await load(collection)).records.get(id);
      return entry === undefined ? undefined : copy<T>(entry.value);
    },
    async insert(collection, id, value) {
      const { text, stored } = toJson(value);
      const c = await load(collection);
      return c.mutate(() => {
        if (c.records.has(id)) throw new DuplicateKeyError(collection, id);
        return { result: undefined, write: c.put(id, stored, text) };
      });
    },
    async put(collection, id, value) {
      const { text, stored } = toJson(value);
      const c = await load(collection);
      return c.mutate(() => ({ result: undefined, write: c.put(id, stored, text) }));
    },
    async update<T extends object>(collection: string, id: string, fn: (current: T | undefined) => T | undefined) {
      const c = await load(collection);
      return c.mutate<T | undefined>(() => {
        const current = c.records.get(id)?.value;
        const next = fn(current === undefined ? undefined : copy<T>(current));
        if (next === undefined) return { result: current === undefined ? undefined : copy<T>(current) };
        const { text, stored } = toJson(next);
        return { result: copy<T>(stored), write: c.put(id, stored, text) };
      });
    },
    async delete(collection, id) {
      return remove(collection, id, () => true);
    },
    async deleteIf<T extends object>(collection: string, id: string, predicate: (current: T) => boolean) {
      return remove(collection, id, (current) => predicate(copy<T>(current)));
    },
    async list<T extends object>(collection: string, filter?: (value: T) => boolean) {
      const c = await load(collection);
      // Filter first, copy only what matches. The filter sees the stored record itself (a predicate;
      // it must not modify what it is given).
      const matching: T[] = [];
      for (const { value } of c.records.values()) if (filter === undefined || filter(value as T)) matching.push(copy<T>(value));
      return matching;
    },
    async count(collection, where) {
      const conditions = checkFind(where ?? {}, undefined);
      return (await load(collection)).count(conditions);
    },
    async find<T extends object>(collection: string, where: Parameters<DocStore['find']>[1], page?: Parameters<DocStore['find']>[2]) {
      const conditions = checkFind(where, page);
      const order = checkOrder(page);
      const c = await load(collection);
      const withPositions = page?.positions === true;
      if (order !== undefined) {
        const after = page?.after === undefined ? undefined : decodeOrderCursor(page.after);
        if (page?.after !== undefined && after === undefined) throw new InvalidCursorError(page.after);
        // `from` starts the walk at its value: past every ordinal of it (desc) or before them all.
        const from = order.from === undefined ? undefined : { value: order.from, ord: order.desc ? Infinity : -Infinity };
        const found = c.findOrdered(conditions, order, after ?? from, page?.limit);
        const items = found.values.map((value) => copy<T>(value));
        const positions = withPositions ? { positions: found.at.map((p) => encodeOrderCursor(p.value, p.ord)) } : {};
        return found.last === undefined ? { items, ...positions } : { items, next: encodeOrderCursor(found.last.value, found.last.ord), ...positions };
      }
      const after = page?.after === undefined ? undefined : afterOrd(collection, c, page.after);
      const found = c.find(conditions, after, page?.limit, page?.newestFirst === true);
      const items = found.values.map((value) => copy<T>(value));
      const cursor = (p: { ord: number; id: string }) => sealCursor(cursorKey!, collection, p.ord, p.id);
      const positions = withPositions ? { positions: found.at.map(cursor) } : {};
      return found.last === undefined ? { items, ...positions } : { items, next: cursor(found.last), ...positions };
    },
  };

  return {
    api,
    async names() {
      const files = await readdir(dir).catch(() => [] as string[]);
      const names = files.map((f) => f.replace(/\.jsonl?$/, '')).filter((name, i, all) => COLLECTION_NAME.test(name) && all.indexOf(name) === i);
      return names.sort();
    },
    async entries(collection) {
      const c = await load(collection);
      return [...c.records].map(([id, entry]) => [id, copy<object>(entry.value)]);
    },
    async open() {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      cursorKey = await loadCursorKey(options.cursorKeyFile);
    },
    async close() {
      const loaded = [...collections.values()];
      collections = new Map();
      await Promise.all(
        loaded.map((loading) =>
          loading.then(
            (c) => c.close(),
            () => undefined,
          ),
        ),
      );
    },
  };
}
