import type { DocPageRequest, DocStore, DocWhere, Store } from '../../src/storage/port.js';

/** What a store wrapped by `countingReads` has read so far. */
export interface ReadCount {
  /** `docs.list` calls, by collection: each reads the whole collection. */
  lists: Record<string, number>;
  /** Records `docs.find` returned, by collection. */
  found: Record<string, number>;
}

/** The store with its document reads counted: shows that a service reads pages, not collections. */
export function countingReads(store: Store): { store: Store; reads: ReadCount } {
  const reads: ReadCount = { lists: {}, found: {} };
  const inner = store.docs;
  const docs: DocStore = {
    get: (collection, id) => inner.get(collection, id),
    insert: (collection, id, value) => inner.insert(collection, id, value),
    put: (collection, id, value) => inner.put(collection, id, value),
    update: (collection, id, fn) => inner.update(collection, id, fn),
    delete: (collection, id) => inner.delete(collection, id),
    deleteIf: (collection, id, predicate) => inner.deleteIf(collection, id, predicate),
    count: (collection, where) => inner.count(collection, where),
    list: (collection, filter) => inner.list(collection, filter),
    find: (collection, where, page) => inner.find(collection, where, page),
  };
  docs.list = (collection, filter) => {
    reads.lists[collection] = (reads.lists[collection] ?? 0) + 1;
    return inner.list(collection, filter);
  };
  docs.find = async <T extends object>(collection: string, where: DocWhere, page?: DocPageRequest) => {
    const result = await inner.find<T>(collection, where, page);
    reads.found[collection] = (reads.found[collection] ?? 0) + result.items.length;
    return result;
  };
  const wrapped: Store = {
    backend: store.backend,
    docs,
    logs: store.logs,
    locks: store.locks,
    pubsub: store.pubsub,
    open: () => store.open(),
    close: () => store.close(),
    isOpen: () => store.isOpen(),
    status: () => store.status(),
  };
  return { store: wrapped, reads };
}
