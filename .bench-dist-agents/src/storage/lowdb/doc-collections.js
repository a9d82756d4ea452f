import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { DuplicateKeyError } from '../port.js';
import { syncDir, syncFile } from './fsync-path.js';
const COLLECTION_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Values are stored as JSON, so what a caller gets back now equals what it gets after a restart. */
function toStored(value) {
    const stored = JSON.parse(JSON.stringify(value));
    if (typeof stored !== 'object' || stored === null)
        throw new TypeError('a document must be a JSON object');
    return stored;
}
/** Documents as lowdb files, `<dir>/<collection>.json`, each holding `{ [id]: record }`. */
export function createDocCollections(options) {
    const { dir, fsync, assertOpen } = options;
    let collections = new Map();
    function load(name) {
        assertOpen();
        if (!COLLECTION_NAME.test(name))
            throw new TypeError(`invalid collection name: ${JSON.stringify(name)}`);
        let loading = collections.get(name);
        if (loading === undefined) {
            const file = join(dir, `${name}.json`);
            // The adapter is built explicitly: lowdb's presets switch to memory when NODE_ENV=test.
            const db = new Low(new JSONFile(file), Object.create(null));
            const created = db.read().then(() => {
                db.data = Object.assign(Object.create(null), db.data);
                return { db, file, tail: Promise.resolve() };
            });
            loading = created;
            collections.set(name, created);
            created.catch(() => collections.get(name) === created && collections.delete(name));
        }
        return loading;
    }
    async function persist(collection) {
        await collection.db.write();
        if (fsync) {
            await syncFile(collection.file);
            await syncDir(dir);
        }
    }
    /** Runs `change` after every earlier mutation of the collection, then writes; undoes it if the write fails. */
    async function mutate(name, change) {
        const collection = await load(name);
        const run = collection.tail.then(async () => {
            const { result, undo } = change(collection.db.data);
            if (undo === undefined)
                return result;
            try {
                await persist(collection);
            }
            catch (error) {
                undo();
                throw error;
            }
            return result;
        });
        collection.tail = run.catch(() => undefined);
        return run;
    }
    /** Sets one record and returns how to restore the previous state. */
    function set(records, id, value) {
        const had = Object.hasOwn(records, id);
        const previous = records[id];
        records[id] = value;
        return had ? () => void (records[id] = previous) : () => void delete records[id];
    }
    const api = {
        async get(collection, id) {
            const { db } = await load(collection);
            return Object.hasOwn(db.data, id) ? toStored(db.data[id]) : undefined;
        },
        async insert(collection, id, value) {
            const stored = toStored(value);
            return mutate(collection, (records) => {
                if (Object.hasOwn(records, id))
                    throw new DuplicateKeyError(collection, id);
                return { result: undefined, undo: set(records, id, stored) };
            });
        },
        async put(collection, id, value) {
            const stored = toStored(value);
            return mutate(collection, (records) => ({ result: undefined, undo: set(records, id, stored) }));
        },
        async update(collection, id, fn) {
            return mutate(collection, (records) => {
                const current = Object.hasOwn(records, id) ? records[id] : undefined;
                const next = fn(current === undefined ? undefined : toStored(current));
                if (next === undefined)
                    return { result: current === undefined ? undefined : toStored(current) };
                const stored = toStored(next);
                return { result: toStored(stored), undo: set(records, id, stored) };
            });
        },
        async delete(collection, id) {
            return mutate(collection, (records) => {
                if (!Object.hasOwn(records, id))
                    return { result: false };
                const keys = Object.keys(records);
                const previous = records[id];
                delete records[id];
                // Re-adding the key, then every key that followed it, restores insertion order.
                const undo = () => {
                    const after = keys.slice(keys.indexOf(id) + 1).map((key) => [key, records[key]]);
                    records[id] = previous;
                    for (const [key, value] of after) {
                        delete records[key];
                        records[key] = value;
                    }
                };
                return { result: true, undo };
            });
        },
        async list(collection, filter) {
            const { db } = await load(collection);
            const all = Object.values(db.data).map((value) => toStored(value));
            return filter === undefined ? all : all.filter(filter);
        },
        async count(collection) {
            const { db } = await load(collection);
            return Object.keys(db.data).length;
        },
    };
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
//# sourceMappingURL=doc-collections.js.map