import { execFileSync } from 'node:child_process';
import type { Socket } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import type { SessionEvent } from '../../src/storage/postgres/pg-session.js';
import { StoreUnavailableError } from '../../src/storage/port.js';
import { ownDatabase } from '../helpers/pg-own-database.js';
import { eventually } from '../helpers/pg-wait.js';
import { databaseUrl, SKIP_REASON } from './postgres-harness.js';

/** `pg_terminate_backend`'s SQLSTATE: "terminating connection due to administrator command". */
const ADMIN_SHUTDOWN = '57P01';

/**
 * Terminates the backend serving client port `port` once it has finished starting (idle, waiting for
 * the client's first statement: ReadyForQuery is sent) and waits until it is gone, so its FATAL error
 * is sent too. Runs in psql, synchronously: this process reads nothing meanwhile, so it later reads the
 * ReadyForQuery and the error in one chunk, which pg parses without yielding (the window in which a
 * client handed out by the pool has no `error` listener yet). The loop's limit only catches a hang.
 */
function terminateWhenReady(adminUrl: string, port: number): void {
  const sql = `DO $$
    DECLARE p int;
    BEGIN
      FOR i IN 1..4000 LOOP
        PERFORM pg_stat_clear_snapshot();
        SELECT pid INTO p FROM pg_stat_activity WHERE client_port = ${port} AND state = 'idle' AND wait_event = 'ClientRead';
        EXIT WHEN p IS NOT NULL;
        PERFORM pg_sleep(0.005);
      END LOOP;
      IF p IS NULL THEN RAISE EXCEPTION 'no ready backend for client port %', ${port}; END IF;
      PERFORM pg_terminate_backend(p, 10000);
    END $$`;
  execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', adminUrl, '-c', sql], { stdio: ['ignore', 'ignore', 'inherit'] });
}

interface StartupConnection {
  stream: Socket;
  startup(config: Record<string, unknown>): void;
}
const connectionProto = (pg as unknown as { Connection: { prototype: StartupConnection } }).Connection.prototype;
const originalStartup = connectionProto.startup;
/** Set: the next new connection of this `application_name` is terminated as soon as it is ready. */
let armed: { application: string; adminUrl: string } | undefined;
/** How many connections the armed hook terminated. */
let terminatedAtStart = 0;
connectionProto.startup = function startup(this: StartupConnection, config: Record<string, unknown>) {
  originalStartup.call(this, config);
  if (armed === undefined || config.application_name !== armed.application) return;
  const { adminUrl } = armed;
  armed = undefined;
  terminateWhenReady(adminUrl, this.stream.localPort!);
  terminatedAtStart += 1;
};
afterAll(() => {
  connectionProto.startup = originalStartup;
});

/** A store on a database of the test's own, with every error and session event it reports. */
async function openStore() {
  const db = await ownDatabase(databaseUrl!, 'cut');
  const errors: Error[] = [];
  const events: SessionEvent[] = [];
  const store = createPostgresStore({
    connectionString: db.url,
    reconnectBackoff: () => 10,
    onError: (error) => void errors.push(error),
    onSessionEvent: (event) => void events.push(event),
  });
  await store.open();
  onTestFinished(() => store.close());
  const adminCodes = () => errors.filter((e) => (e as { code?: string }).code === ADMIN_SHUTDOWN).length;
  /** Terminates every pooled backend and waits until the pool has discarded each (it reports each). */
  const cutPooled = async () => {
    const before = adminCodes();
    const cut = await db.terminate('core-server');
    await eventually(() => expect(adminCodes()).toBe(before + cut));
    return cut;
  };
  /** The store serves again: a write through a transaction, a lock and a read. */
  const serves = async (id: string) => {
    await store.docs.put('things', id, { id });
    await store.locks.run('k', () => store.docs.update<{ id: string; n?: number }>('things', id, (t) => ({ ...t!, n: 1 })));
    expect(await store.docs.get('things', id)).toEqual({ id, n: 1 });
  };
  return { db, store, errors, events, adminCodes, cutPooled, serves };
}

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('postgres: a terminated backend of any kind never takes the process down', () => {
  it('an idle pooled connection: the pool discards it, reports it, and the next call gets a new one', async () => {
    const { store, cutPooled, serves } = await openStore();
    await serves('a');
    expect(await cutPooled()).toBeGreaterThan(0);
    await serves('b');
    expect(store.status().ready).toBe(true);
  });

  it('a new pooled connection terminated as it becomes ready (error in the same chunk as ReadyForQuery)', async () => {
    const { store, errors, cutPooled, adminCodes, serves } = await openStore();
    await cutPooled();
    const before = adminCodes();
    // The pool is empty: the lock's connect opens a new connection, which the hook terminates.
    armed = { application: 'core-server', adminUrl: databaseUrl! };
    const atStart = terminatedAtStart;
    await expect(store.locks.run('k', () => Promise.resolve(1))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(terminatedAtStart).toBe(atStart + 1);
    // Reported once, by the listener every pooled client has from its first moment.
    expect(adminCodes()).toBe(before + 1);
    expect(errors.at(-1)?.message).toMatch(/administrator command/);
    await serves('c');
  });

  it('a checked-out connection cut between statements: the holder fails as unavailable, nothing of it commits', async () => {
    const { db, store, serves } = await openStore();
    await serves('a');
    let told: AbortSignal | undefined;
    await expect(
      store.locks.run('k', async (lost) => {
        told = lost;
        await store.docs.put('things', 'inside', { id: 'inside' });
        expect(await db.terminate('core-server', "state = 'idle in transaction'")).toBe(1);
        await store.docs.put('things', 'after', { id: 'after' });
      }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    // The holder was told its lock is gone (a long holder listens to this).
    expect(told?.aborted).toBe(true);
    expect(await store.docs.get('things', 'inside')).toBeUndefined();
    await serves('b');
  });

  it('the session (LISTEN) connection: reported lost, reconnected, ready again', async () => {
    const { db, store, events, serves } = await openStore();
    expect(await db.terminate('core-server session')).toBe(1);
    await eventually(() => expect(events.map((e) => e.kind)).toContain('resumed'));
    expect(events.find((e) => e.kind === 'lost')).toMatchObject({ error: { code: ADMIN_SHUTDOWN } });
    await eventually(() => expect(store.status().ready).toBe(true));
    await serves('a');
  });

  it("the database probe's connection terminated as it connects: the probe tries again and the check comes back", async () => {
    const { store, cutPooled } = await openStore();
    await cutPooled();
    // A call on a connection cut as it became ready: the database check goes down, the probe starts.
    armed = { application: 'core-server', adminUrl: databaseUrl! };
    await expect(store.locks.run('k', () => Promise.resolve(1))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(store.status().checks.database!.ok).toBe(false);
    // No call is made from here on: only the probe opens connections; its first is cut as it connects.
    const atStart = terminatedAtStart;
    armed = { application: 'core-server', adminUrl: databaseUrl! };
    await eventually(() => expect(terminatedAtStart).toBe(atStart + 1));
    await eventually(() => expect(store.status().checks.database!.ok).toBe(true));
    expect(store.status().ready).toBe(true);
  });
});
