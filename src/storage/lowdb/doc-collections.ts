import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { DuplicateKeyError, type DocStore } from '../port.js';
import { syncDir, syncFile } from './fsync-path.js';

const COLLECTION_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** A collection's records by id. Null prototype, so ids such as `__proto__` are plain keys. */
type Records = Record<string, object>;

interface Collection {
  db: Low<Records>;
  file: string;
  /** End of the collection's write queue: mutations run one at a time, in call order. */
  tail: Promise<unknown>;
}

/** What a mutation did: its result, and how to take it back if the write fails (absent: nothing written). */
interface Change<T> {
  result: T;
  undo?: () => void;
}

export interface DocCollectionsOptions {
  dir: string;
  fsync: boolean;
  assertOpen: () => void;
}

export interface DocCollections {
  api: DocStore;
  open(): Promise<void>;
  /** Waits for queued writes, then forgets the cached collections. */
  close(): Promise<void>;
}

/** Values are stored as JSON, so what a caller gets back now equals what it gets after a restart. */
function toStored<T>(value: T): T {
  const stored = JSON.parse(JSON.stringify(value)) as unknown;
  if (typeof stored !== 'object' || stored === null) throw new TypeError('a document must be a JSON object');
  return stored as T;
}

/** Documents as lowdb files, `<dir>/<collection>.json`, each holding `{ [id]: record }`. */
export function createDocCollections(options: DocCollectionsOptions): DocCollections {
  const { dir, fsync, assertOpen } = options;
  let collections = new Map<string, Promise<Collection>>();

  function load(name: string): Promise<Collection> {
    assertOpen();
    if (!COLLECTION_NAME.test(name)) throw new TypeError(`invalid collection name: ${JSON.stringify(name)}`);
    let loading = collections.get(name);
    if (loading === undefined) {
      const file = join(dir, `${name}.json`);
      // The adapter is built explicitly: lowdb's presets switch to memory when NODE_ENV=test.
      const db = new Low<Records>(new JSONFile<Records>(file), Object.create(null) as Records);
      const created: Promise<Collection> = db.read().then(() => {
        db.data = Object.assign(Object.create(null) as Records, db.data);
        return { db, file, tail: Promise.resolve() };
      });
      loading = created;
      collections.set(name, created);
      created.catch(() => collections.get(name) === created && collections.delete(name));
    }
    return loading;
  }

  async function persist(collection: Collection): Promise<void> {
    await collection.db.write();
    if (fsync) {
      await syncFile(collection.file);
      await syncDir(dir);
    }
  }

  /** Runs `change` after every earlier mutation of the collection, then writes; undoes it if the write fails. */
  async function mutate<T>(name: string, change: (records: Records) => Change<T>): Promise<T> {
    const collection = await load(name);
    const run = collection.tail.then(async () => {
      const { result, undo } = change(collection.db.data);
      if (undo === undefined) return result;
      try {
        await persist(collection);
      } catch (error) {
        undo();
        throw error;
      }
      return result;
    });
    collection.tail = run.catch(() => undefined);
    return run;
  }

  /** Sets one record and returns how to restore the previous state. */
  function set(records: Records, id: string, value: object): () => void {
    const had = Object.hasOwn(records, id);
    const previous = records[id];
    records[id] = value;
    return had ? () => void (records[id] = previous!) : () => void delete records[id];
  }

  const api: DocStore = {
    async get<T extends object>(collection: string, id: string) {
      const { db } = await load(collection);
      return Object.hasOwn(db.data, id) ? toStored(db.data[id] as T) : undefined;
    },
    async insert(collection, id, value) {
      const stored = toStored(value);
      return mutate(collection, (records) => {
        if (Object.hasOwn(records, id)) throw new DuplicateKeyError(collection, id);
        return { result: undefined, undo: set(records, id, stored) };
      });
    },
    async put(collection, id, value) {
      const stored = toStored(value);
      return mutate(collection, (records) => ({ result: undefined, undo: set(records, id, stored) }));
    },
    async update<T extends object>(collection: string, id: string, fn: (current: T | undefined) => T | undefined) {
      return mutate<T | undefined>(collection, (records) => {
        const current = Object.hasOwn(records, id) ? (records[id] as T) : undefined;
        const next = fn(current === undefined ? undefined : toStored(current));
        if (next === undefined) return { result: current === undefined ? undefined : toStored(current) };
        const stored = toStored(next);
        return { result: toStored(stored), undo: set(records, id, stored) };
      });
    },
    async delete(collection, id) {
      return remove(collection, id, () => true);
    },
    async deleteIf<T extends object>(collection: string, id: string, predicate: (current: T) => boolean) {
      return remove(collection, id, (current) => predicate(toStored(current as T)));
    },
    async list<T extends object>(collection: string, filter?: (value: T) => boolean) {
      const { db } = await load(collection);
      // Filter first, copy only what matches: a list of a few records out of thousands copies a few.
      // The filter sees the stored record itself (a predicate; it must not modify what it is given).
      const values = Object.values(db.data) as T[];
      const matching = filter === undefined ? values : values.filter((value) => filter(value));
      return matching.map((value) => toStored(value));
    },
    async count(collection) {
      const { db } = await load(collection);
      return Object.keys(db.data).length;
    },
  };

  /** Deletes a record if `matches` holds for it, in the collection's queue of mutations (so atomically). */
  function remove(collection: string, id: string, matches: (current: object) => boolean): Promise<boolean> {
    return mutate(collection, (records) => {
      if (!Object.hasOwn(records, id) || !matches(records[id]!)) return { result: false };
      const keys = Object.keys(records);
      const previous = records[id]!;
      delete records[id];
      // Re-adding the key, then every key that followed it, restores insertion order.
      const undo = (): void => {
        const after = keys.slice(keys.indexOf(id) + 1).map((key) => [key, records[key]!] as const);
        records[id] = previous;
        for (const [key, value] of after) {
          delete records[key];
          records[key] = value;
        }
      };
      return { result: true, undo };
    });
  }

  return {
    api,
    async open() {
      await mkdir(dir, { recursive: true });
    },
    async close() {
      const loaded = [...collections.values()];
      collections = new Map();
      await Promise.all(loaded.map((loading) => loading.then((c) => c.tail, () => undefined)));
    },
  };
}
