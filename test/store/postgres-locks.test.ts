import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Json } from '../../src/storage/port.js';
import { eventually, listeningNow } from '../helpers/pg-wait.js';
import { databaseUrl, makePostgresHarness, SKIP_REASON } from './postgres-harness.js';

async function twoStores() {
  const harness = await makePostgresHarness();
  onTestFinished(() => harness.cleanup());
  return { a: harness.store, b: await harness.open(), harness };
}

/** Two processes on one schema, the receiver listening (LISTEN in place) on `channel`; errors either reports. */
async function senderAndReceiver(channel: string) {
  const errors: Error[] = [];
  const harness = await makePostgresHarness({ onError: (error) => void errors.push(error) });
  onTestFinished(() => harness.cleanup());
  const sender = harness.store;
  const receiver = await harness.open();
  const got: Json[] = [];
  receiver.pubsub.subscribe(channel, (m) => void got.push(m));
  await listeningNow(sender.pubsub, receiver.pubsub);
  return { sender, receiver, got, errors };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('postgres: locks and pubsub across processes', () => {
  it('claims many keys at once, refusing only those another process holds, and frees them all after', async () => {
    const { a, b } = await twoStores();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    const holder = a.locks.run('k0', async () => {
      entered();
      await held;
    });
    await holding;
    const keys = Array.from({ length: 60 }, (_, i) => `k${i}`);
    const outcomes = await Promise.all(keys.map((key) => b.locks.tryRun(key, async () => key)));
    expect(outcomes[0]).toEqual({ ran: false });
    expect(outcomes.slice(1)).toEqual(keys.slice(1).map((key) => ({ ran: true, value: key })));
    release();
    await holder;
    // Every key was released: the other process takes each of them now.
    const again = await Promise.all(keys.map((key) => a.locks.tryRun(key, async () => true)));
    expect(keys.filter((_, i) => !again[i]!.ran)).toEqual([]);
  });

  it('makes run wait for another process to release the key, and frees the key of a process that closed', async () => {
    const { a, b } = await twoStores();
    const order: string[] = [];
    let entered!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    const first = a.locks.run('shared', async () => {
      entered();
      await sleep(150);
      order.push('a');
    });
    await holding;
    await b.locks.run('shared', async () => void order.push('b'));
    await first;
    expect(order).toEqual(['a', 'b']);
    // A process that dies holding a key (its session ends) releases it.
    let stuck!: () => void;
    const stuckIn = new Promise<void>((resolve) => (stuck = resolve));
    void a.locks.run('orphan', () => {
      stuck();
      return new Promise(() => undefined);
    });
    await stuckIn;
    expect(await b.locks.tryRun('orphan', async () => true)).toEqual({ ran: false });
    await a.close();
    expect(await b.locks.run('orphan', async () => 'taken')).toBe('taken');
  });

  it('never has two statements at once on the session connection while locking and subscribing (no pg warning)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.message);
    process.on('warning', onWarning);
    onTestFinished(() => void process.off('warning', onWarning));
    const { a } = await twoStores();
    const work = Array.from({ length: 40 }, (_, i) => a.locks.tryRun(`w${i % 7}`, async () => sleep(1)));
    for (let i = 0; i < 10; i++) a.pubsub.subscribe(`chan-${i}`, () => undefined);
    await Promise.all(work);
    await Promise.all(Array.from({ length: 20 }, (_, i) => a.locks.run(`r${i % 3}`, async () => sleep(1))));
    // A statement queued on the session behind every release above: once it is answered, those were
    // sent, and a warning they caused has been emitted.
    await a.locks.run('after-all', async () => undefined);
    expect(warnings.filter((m) => /already executing a query/.test(m))).toEqual([]);
  });

  it('delivers a message published by one process to subscribers in both', async () => {
    const { a, b } = await twoStores();
    const got: Record<string, Json[]> = { a: [], b: [] };
    a.pubsub.subscribe('news', (m) => void got.a!.push(m));
    b.pubsub.subscribe('news', (m) => void got.b!.push(m));
    await Promise.all([listeningNow(a.pubsub, a.pubsub), listeningNow(a.pubsub, b.pubsub)]);
    a.pubsub.publish('news', { n: 1 });
    a.pubsub.publish('news', { n: 2 });
    await eventually(() => expect(Math.min(got.a!.length, got.b!.length)).toBeGreaterThanOrEqual(2));
    expect(got.b).toEqual([{ n: 1 }, { n: 2 }]);
    expect(got.a).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('sends a message published while a lock transaction commits only once its rows are visible to the listener', async () => {
    const { a, b, harness } = await twoStores();
    // The lock transaction's COMMIT is held (a deferred trigger waits for an advisory lock this test
    // holds), so there is a moment when the holder's work is over and its rows are not yet visible.
    const gate = new pg.Client({ connectionString: databaseUrl! });
    await gate.connect();
    onTestFinished(() => gate.end());
    const GATE = 424242;
    await gate.query(`CREATE FUNCTION ${harness.schema}.hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(${GATE}); RETURN NULL; END $$`);
    await gate.query(`CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON ${harness.schema}.log_rows
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${harness.schema}.hold_commit()`);
    await gate.query(`SELECT pg_advisory_lock(${GATE})`);

    const seen: number[] = [];
    const reads: Promise<void>[] = [];
    b.pubsub.subscribe('rows', () => void reads.push(b.logs.count('announced').then((n) => void seen.push(n))));
    let probes = 0;
    b.pubsub.subscribe('probe', () => void (probes += 1));
    await listeningNow(a.pubsub, b.pubsub);

    let committing!: () => void;
    const commitHeld = new Promise<void>((resolve) => (committing = resolve));
    const holder = a.locks.tryRun('announce', async () => {
      await a.logs.append('announced', () => ({ tick: 0, type: 'row' }));
      // Published from the holder's context once its transaction is committing (no longer taking statements).
      void commitHeld.then(() => a.pubsub.publish('rows', { seq: 0 }));
    });
    await eventually(async () => {
      const { rows } = await gate.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = ${GATE} AND NOT granted`,
      );
      expect(rows[0]!.n).toBe(1);
    });
    committing();
    // Messages of one sender arrive in order: once the probe is heard, a message sent before it was too.
    a.pubsub.publish('probe', {});
    await eventually(() => expect(probes).toBe(1));
    await Promise.all(reads);
    expect(seen).toEqual([]);

    await gate.query(`SELECT pg_advisory_unlock(${GATE})`);
    expect(await holder).toEqual({ ran: true, value: undefined });
    await eventually(() => expect(seen).toEqual([1]));
  });

  it('sends the messages it batches into one round trip as given, quotes and backslashes included; one too long for NOTIFY fails alone', async () => {
    const { sender, receiver, got, errors } = await senderAndReceiver('mixed');
    const odd = { text: "it's a \\ back'slash, é; COMMIT; --" };
    // Published in one turn: the first goes out, the rest wait and go together (on the pool)...
    sender.pubsub.publish('mixed', { n: 1, ...odd });
    sender.pubsub.publish('mixed', { n: 2, ...odd });
    sender.pubsub.publish('mixed', { n: 3, big: 'x'.repeat(9000) });
    sender.pubsub.publish('mixed', { n: 4, ...odd });
    // ...and with the COMMIT of a lock transaction.
    await sender.locks.run('k', async () => {
      await sender.logs.append('s', () => ({ tick: 1, type: 'x' }));
      sender.pubsub.publish('mixed', { n: 5, ...odd });
      sender.pubsub.publish('mixed', { n: 6, big: 'x'.repeat(9000) });
      sender.pubsub.publish('mixed', { n: 7, ...odd });
    });
    expect(await receiver.logs.count('s')).toBe(1);
    await eventually(() => expect(got).toHaveLength(5));
    expect(got).toEqual([1, 2, 4, 5, 7].map((n) => ({ n, ...odd })));
    await eventually(() => expect(errors).toHaveLength(2));
    expect(errors.every((e) => /payload string too long/i.test(e.message))).toBe(true);
  });

  it('sends every message published before close, and reports no error after it', async () => {
    const { sender, got, errors } = await senderAndReceiver('backlog');
    // Queued one after the other (order per sender), so most are still waiting when close starts.
    for (let n = 0; n < 200; n++) sender.pubsub.publish('backlog', { n });
    await sender.close();
    await eventually(() => expect(got).toHaveLength(200));
    expect(got).toEqual(Array.from({ length: 200 }, (_, n) => ({ n })));
    expect(errors).toEqual([]);
  });
});
