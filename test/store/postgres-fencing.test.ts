import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { advisoryKey } from '../../src/storage/postgres/pg-session.js';
import { StoreUnavailableError, type LogRow, type Store } from '../../src/storage/port.js';
import { eventually, listeningNow } from '../helpers/pg-wait.js';
import { databaseUrl, makePostgresHarness, SKIP_REASON } from './postgres-harness.js';

/** A promise and the function that settles it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

async function admin(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl! });
  await client.connect();
  onTestFinished(() => client.end());
  return client;
}

/** The backend holding the advisory lock of `key` in `schema` (an int8 key is classid:objid, objsubid 1). */
async function holderOf(db: pg.Client, schema: string, key: string): Promise<number | undefined> {
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
    [advisoryKey(schema, key)],
  );
  return rows[0]?.pid;
}

/** Terminates the backend holding `key`, and waits until PostgreSQL freed the lock. */
async function cutHolder(db: pg.Client, schema: string, key: string): Promise<void> {
  const pid = await holderOf(db, schema, key);
  expect(pid, `a backend holds ${key}`).toBeDefined();
  await db.query('SELECT pg_terminate_backend($1)', [pid]);
  await eventually(async () => expect(await holderOf(db, schema, key)).toBeUndefined());
}

async function twoStores() {
  const harness = await makePostgresHarness();
  onTestFinished(() => harness.cleanup());
  return { a: harness.store, b: await harness.open(), schema: harness.schema };
}

interface Fire extends LogRow {
  due: number;
  by: string;
  prev: number | null;
}

/**
 * One fire of due tick `due` under the claim, as the contract scheduler does it: read what fired last
 * under the claim, append the next due tick only if it has not fired. `pause` holds the holder after its
 * read, at the worst moment (claimed, read, not yet written).
 */
function fire(store: Store, due: number, by: string, pause?: { entered: () => void; wait: Promise<void> }) {
  return store.locks.tryRun('fire', async () => {
    const last = await store.logs.head<Fire>('fires');
    if (last !== undefined && last.due >= due) return 'fired already';
    if (pause) {
      pause.entered();
      await pause.wait;
    }
    await store.logs.append<Fire>('fires', (head) => ({ tick: due, type: 'fire', due, by, prev: head?.seq ?? null }));
    await store.docs.put('fired', 'last', { due, by });
    return 'fired';
  });
}

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('postgres: locked writes commit only while the lock is held', () => {
  it('rolls back the work of a holder whose connection died, and lets the next holder write alone', async () => {
    const { a, b, schema } = await twoStores();
    const db = await admin();
    const entered = gate();
    const held = gate();
    const first = a.locks.run('k', async () => {
      await a.logs.append('s', () => ({ tick: 1, type: 'a' }));
      await a.docs.put('c', 'x', { by: 'a' });
      a.pubsub.publish('ch', { by: 'a' });
      entered.open();
      await held.wait;
      await a.docs.put('c', 'y', { by: 'a' });
      return 'a';
    });
    await entered.wait;
    await cutHolder(db, schema, 'k');
    // The other process takes the freed lock and writes while the first holder still runs.
    await b.locks.run('k', async () => {
      await b.logs.append('s', () => ({ tick: 2, type: 'b' }));
      await b.docs.put('c', 'x', { by: 'b' });
    });
    held.open();
    await expect(first).rejects.toBeInstanceOf(StoreUnavailableError);
    expect((await b.logs.read('s')).map((row) => row.type)).toEqual(['b']);
    expect(await b.docs.get('c', 'x')).toEqual({ by: 'b' });
    expect(await b.docs.get('c', 'y')).toBeUndefined();
    // The store that lost its connection works on: its next lock commits.
    expect(await a.locks.run('k', async () => a.logs.append('s', () => ({ tick: 3, type: 'a' })))).toMatchObject({ seq: 1 });
  });

  it('fires each due tick once from two stores whose claim holders are cut mid-fire', async () => {
    const { a, b, schema } = await twoStores();
    const db = await admin();
    const outcomes: string[] = [];
    for (let due = 1; due <= 8; due++) {
      const [cut, other] = due % 2 === 0 ? [a, b] : [b, a];
      const entered = gate();
      const held = gate();
      const first = fire(cut, due, 'cut', { entered: entered.open, wait: held.wait });
      await entered.wait;
      await cutHolder(db, schema, 'fire');
      const second = await fire(other, due, 'other');
      expect(second).toEqual({ ran: true, value: 'fired' });
      held.open();
      await first.then(
        () => outcomes.push('committed'),
        (error: unknown) => outcomes.push(error instanceof StoreUnavailableError ? 'unavailable' : String(error)),
      );
      // Both try again: the due tick has fired, neither writes it twice.
      expect(await fire(cut, due, 'again')).toEqual({ ran: true, value: 'fired already' });
      expect(await fire(other, due, 'again')).toEqual({ ran: true, value: 'fired already' });
    }
    expect(outcomes).toEqual(Array(8).fill('unavailable'));
    const rows = await a.logs.read<Fire>('fires');
    const dues = rows.map((row) => row.due);
    expect(dues).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(rows.every((row) => row.by === 'other')).toBe(true);
    // One linear chain: each row links to the one before it.
    expect(rows.map((row) => row.prev)).toEqual([null, 0, 1, 2, 3, 4, 5, 6]);
    expect(await a.docs.get('fired', 'last')).toEqual({ due: 8, by: 'other' });
  });

  it('takes a nested lock on the same transaction, and rolls back an inner failure only to its savepoint', async () => {
    const { a, b } = await twoStores();
    const value = await a.locks.run('outer', async () => {
      await a.docs.insert('c', 'one', { n: 1 });
      // A duplicate insert fails alone; the transaction goes on.
      await expect(a.docs.insert('c', 'one', { n: 2 })).rejects.toThrow(/already exists/);
      const inner = await a.locks.run('inner', async () => {
        // Re-entrant: the transaction holds `outer` already.
        const again = await a.locks.tryRun('outer', async () => 'again');
        // Another store cannot take a key this transaction holds.
        const elsewhere = await b.locks.tryRun('inner', async () => 'b');
        await a.logs.append('s', () => ({ tick: 1, type: 'inner' }));
        return { again, elsewhere };
      });
      // A build that throws rejects its own append only.
      await expect(
        a.logs.append('s', () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      // Reads inside see the transaction's own writes.
      expect(await a.docs.get('c', 'one')).toEqual({ n: 1 });
      return inner;
    });
    expect(value).toEqual({ again: { ran: true, value: 'again' }, elsewhere: { ran: false } });
    expect(await b.docs.get('c', 'one')).toEqual({ n: 1 });
    expect((await b.logs.read('s')).map((row) => row.type)).toEqual(['inner']);
  });

  it('stores nothing of a holder that throws, and announces none of its messages', async () => {
    const { a, b } = await twoStores();
    const heard: unknown[] = [];
    b.pubsub.subscribe('ch', (message) => void heard.push(message));
    // LISTEN is asynchronous: a message published before it is in place would never be heard.
    await listeningNow(a.pubsub, b.pubsub);
    await expect(
      a.locks.run('k', async () => {
        await a.logs.append('s', () => ({ tick: 1, type: 'x' }));
        a.pubsub.publish('ch', { n: 1 });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await a.locks.run('k', async () => {
      a.pubsub.publish('ch', { n: 2 });
    });
    await eventually(() => expect(heard).toEqual([{ n: 2 }]));
    expect(await b.logs.read('s')).toEqual([]);
  });

  it('keeps lock holders below the pool size, so reads outside locks never wait for a holder', async () => {
    const harness = await makePostgresHarness({ maxConnections: 4 });
    onTestFinished(() => harness.cleanup());
    const store = harness.store;
    const held = gate();
    let inside = 0;
    const holders = Array.from({ length: 6 }, (_, i) =>
      store.locks.run(`k${i}`, async () => {
        inside += 1;
        await held.wait;
      }),
    );
    // Three of four connections may hold locks: the fourth serves reads while all three wait.
    await eventually(() => expect(inside).toBe(3));
    expect(await store.docs.get('c', 'missing')).toBeUndefined();
    expect(inside).toBe(3);
    held.open();
    await Promise.all(holders);
    expect(inside).toBe(6);
  });
});
