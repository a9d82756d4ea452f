import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import type { SessionEvent } from '../../src/storage/postgres/pg-session.js';
import { StoreUnavailableError, type Json } from '../../src/storage/port.js';
import { ownDatabase } from '../helpers/pg-own-database.js';
import { eventually, listeningNow } from '../helpers/pg-wait.js';
import { databaseUrl, SKIP_REASON } from './postgres-harness.js';

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('postgres: the session connection comes back after an outage of any length', () => {
  it('reconnects after many refused tries, re-LISTENs, calls onResume and reports down and up', async () => {
    const db = await ownDatabase(databaseUrl!, 'fence');
    const events: SessionEvent[] = [];
    let retries = 0;
    /** Resolves when the session has failed this many reconnect tries in a row. */
    let retried: { count: number; done: () => void } | undefined;
    const open = (onEvent?: (event: SessionEvent) => void) => {
      const store = createPostgresStore({
        connectionString: db.url,
        // Tries follow each other at once: the test counts tries, not time.
        reconnectBackoff: () => 10,
        connectTimeoutMs: 2_000,
        ...(onEvent ? { onSessionEvent: onEvent } : {}),
      });
      onTestFinished(() => store.close());
      return store;
    };
    const a = open((event) => {
      events.push(event);
      if (event.kind === 'retry') {
        retries += 1;
        if (retried && retries >= retried.count) retried.done();
      }
    });
    await a.open();
    const heard: Json[] = [];
    a.pubsub.subscribe('news', (message) => void heard.push(message));
    let resumed = 0;
    a.pubsub.onResume(() => void (resumed += 1));
    expect(a.status()).toMatchObject({ ready: true, checks: { session: { ok: true }, database: { ok: true } } });

    await db.refuse();
    // Twenty refused tries in a row: the old session gave up after one.
    await new Promise<void>((done) => (retried = { count: 20, done }));
    expect(a.status().ready).toBe(false);
    expect(a.status().checks.session).toMatchObject({ ok: false, losses: 1 });
    // A call while the database refuses fails as unavailable, and the database check says so.
    await expect(a.docs.get('c', 'x')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(a.status().checks.database!.ok).toBe(false);
    expect(resumed).toBe(0);

    await db.allow();
    await eventually(() => expect(resumed).toBe(1));
    await eventually(() => expect(a.status()).toMatchObject({ ready: true, checks: { session: { ok: true, losses: 1 }, database: { ok: true } } }));
    expect(events.filter((e) => e.kind === 'lost')).toHaveLength(1);
    expect(events.filter((e) => e.kind === 'resumed')).toHaveLength(1);

    // A message published after the outage, by another process, is heard again.
    const b = open();
    await b.open();
    await listeningNow(b.pubsub, a.pubsub);
    b.pubsub.publish('news', { after: 'outage' });
    await eventually(() => expect(heard).toEqual([{ after: 'outage' }]));
  });
});
