import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { createLocalLocks } from '../local-coordination.js';
import type { Json, LockStore, PubSub, StoreCheck } from '../port.js';
import { quoteIdent } from './sql.js';

/** Pause before reconnecting a dropped session connection. */
const RECONNECT_MS = 500;
/** Longest wait between two tries of a held advisory lock. */
const MAX_LOCK_POLL_MS = 100;

export interface PgSessionOptions {
  connectionString: string;
  /** Locks and channels are scoped to the schema, so stores on two schemas of one database never meet. */
  schemaName: string;
  /** The pool NOTIFY goes through (a message needs no session). */
  pool: () => pg.Pool;
  onError?: (error: Error) => void;
}

/** A signed 64-bit advisory lock key for a (schema, key) pair. */
export function advisoryKey(schemaName: string, key: string): string {
  return createHash('sha256').update(`${schemaName}\u0000${key}`).digest().readBigInt64BE(0).toString();
}

/** The PostgreSQL channel a (schema, channel) pair is carried on: an identifier under 63 bytes. */
export function channelName(schemaName: string, channel: string): string {
  return `core_${createHash('sha256').update(`${schemaName}\u0000${channel}`).digest('hex').slice(0, 40)}`;
}

/**
 * One connection per process, kept for its session: it holds the advisory locks (`pg_try_advisory_lock`,
 * released when the process or its connection dies, so a dead process's claims free themselves) and
 * LISTENs to the channels this process subscribed to. In-process, a keyed mutex comes first, since a
 * session's advisory locks are re-entrant for its own process. The connection is re-opened after a drop,
 * and re-LISTENs; messages sent meanwhile are missed (readers fill gaps from the logs).
 */
export function createPgSession(options: PgSessionOptions) {
  const local = createLocalLocks();
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const listening = new Set<string>();
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let closed = true;
  let retry: NodeJS.Timeout | undefined;
  // One query at a time on the session client (pg 9 refuses a query while another runs on a client).
  // Only single statements queue here; the work done under a lock runs on the pool, so it never waits
  // behind its own lock's release.
  let queue: Promise<unknown> = Promise.resolve();
  /** Channels a client being opened LISTENs to already. */
  const heardOn = new WeakMap<pg.Client, Set<string>>();
  const resumed = new EventEmitter();
  resumed.setMaxListeners(0);
  /** Whether the session connection was ever lost since open: its return is then a resume. */
  let lost = false;
  let check: StoreCheck = { ok: false, detail: 'not open', since_ms: Date.now() };
  const setCheck = (ok: boolean, detail?: string) => {
    if (check.ok !== ok) check = { ok, ...(detail ? { detail } : {}), since_ms: Date.now() };
  };
  function serial<T>(query: () => Promise<T>): Promise<T> {
    const result = queue.then(query, query);
    queue = result.catch(() => undefined);
    return result;
  }
  const report = (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error)));

  async function connect(): Promise<pg.Client> {
    const fresh = new pg.Client({ connectionString: options.connectionString, application_name: 'core-server session', keepAlive: true });
    fresh.on('error', (error) => {
      report(error);
      drop(fresh);
    });
    fresh.on('end', () => drop(fresh));
    fresh.on('notification', (message) => {
      if (message.payload === undefined) return;
      try {
        emitter.emit(message.channel, JSON.parse(message.payload) as Json);
      } catch (error) {
        report(error);
      }
    });
    await fresh.connect();
    // Not shared yet, so these are the only queries on it; a channel subscribed meanwhile is picked up
    // by the loop, and one subscribed after it by `session` once the client is shared.
    for (const name of listening) {
      await fresh.query(`LISTEN ${quoteIdent(name)}`);
      heardOn.set(fresh, (heardOn.get(fresh) ?? new Set()).add(name));
    }
    return fresh;
  }

  function drop(which: pg.Client): void {
    if (client !== which) return;
    client = undefined;
    lost = true;
    setCheck(false, 'the session connection was lost; reconnecting');
    which.end().catch(() => undefined);
    if (!closed && retry === undefined) {
      retry = setTimeout(() => {
        retry = undefined;
        void session().catch(report);
      }, RECONNECT_MS);
      retry.unref();
    }
  }

  function session(): Promise<pg.Client> {
    if (closed) return Promise.reject(new Error('the store is not open'));
    if (client !== undefined) return Promise.resolve(client);
    connecting ??= connect().then(
      (c) => {
        connecting = undefined;
        if (closed) {
          void c.end().catch(() => undefined);
          throw new Error('the store is not open');
        }
        client = c;
        setCheck(true);
        if (lost) {
          lost = false;
          resumed.emit('resume');
        }
        const heard = heardOn.get(c);
        heardOn.delete(c);
        for (const name of listening) {
          if (!heard?.has(name)) serial(() => c.query(`LISTEN ${quoteIdent(name)}`)).catch(report);
        }
        return c;
      },
      (error: unknown) => {
        connecting = undefined;
        throw error;
      },
    );
    return connecting;
  }

  /**
   * Advisory lock statements waiting for the session, sent together as one statement when their turn
   * comes: with a hundred contracts due in one tick, a pass costs one round trip to claim them and few to
   * release them, instead of two round trips each queued behind one another on the one connection.
   * A key is in at most one pending operation (the in-process mutex lets one holder per key at a time,
   * and a release finishes before the key's next holder tries), so their order within a batch is free.
   */
  type AdvisoryOp = { lock: boolean; id: string; on?: pg.Client; done: (on: pg.Client | undefined) => void; fail: (error: unknown) => void };
  let batch: AdvisoryOp[] | undefined;

  /** Queues one advisory lock try (resolves with the session holding it, or undefined) or release. */
  function advisory(lock: boolean, id: string, on?: pg.Client): Promise<pg.Client | undefined> {
    return new Promise((done, fail) => {
      if (batch === undefined) {
        const mine: AdvisoryOp[] = [];
        batch = mine;
        serial(async () => {
          // Closed to newcomers now: they start the next batch, queued behind this one.
          if (batch === mine) batch = undefined;
          await runBatch(mine);
        }).catch((error: unknown) => {
          for (const op of mine) op.fail(error);
        });
      }
      batch.push({ lock, id, ...(on ? { on } : {}), done, fail });
    });
  }

  async function runBatch(ops: AdvisoryOp[]): Promise<void> {
    // A release for a session that dropped meanwhile has nothing left to release (its locks went with it).
    // Closing: no new claims, but releases still go out (before the connection ends).
    const live = ops.filter((op) => (op.lock ? !closed : op.on !== undefined && op.on === client));
    for (const op of ops) {
      if (live.includes(op)) continue;
      if (op.lock) op.fail(new Error('the store is not open'));
      else op.done(undefined);
    }
    if (live.length === 0) return;
    const on = client ?? (await session());
    const { rows } = await on.query<{ ok: boolean }>(
      live.length === 1
        ? live[0]!.lock
          ? 'SELECT pg_try_advisory_lock($1::bigint) AS ok'
          : 'SELECT pg_advisory_unlock($1::bigint) AS ok'
        : 'SELECT CASE WHEN u.l THEN pg_try_advisory_lock(u.k) ELSE pg_advisory_unlock(u.k) END AS ok FROM unnest($1::bool[], $2::bigint[]) AS u(l, k)',
      live.length === 1 ? [live[0]!.id] : [live.map((op) => op.lock), live.map((op) => op.id)],
    );
    live.forEach((op, i) => op.done(rows[i]?.ok ? on : undefined));
  }

  async function tryAdvisory(key: string): Promise<{ id: string; on: pg.Client } | undefined> {
    const id = advisoryKey(options.schemaName, key);
    const on = await advisory(true, id);
    return on === undefined ? undefined : { id, on };
  }

  async function release(held: { id: string; on: pg.Client }): Promise<void> {
    await advisory(false, held.id, held.on).then(() => undefined, report);
  }

  const locks: LockStore = {
    async tryRun(key, fn) {
      if (local.held(key)) return { ran: false };
      const outcome = await local.tryRun(key, async () => {
        const held = await tryAdvisory(key);
        if (held === undefined) return { ran: false as const };
        try {
          return { ran: true as const, value: await fn() };
        } finally {
          await release(held);
        }
      });
      return outcome.ran ? outcome.value : outcome;
    },
    run(key, fn) {
      return local.run(key, async () => {
        let wait = 5;
        for (;;) {
          const held = await tryAdvisory(key);
          if (held !== undefined) {
            try {
              return await fn();
            } finally {
              await release(held);
            }
          }
          await new Promise((resolve) => setTimeout(resolve, wait));
          wait = Math.min(MAX_LOCK_POLL_MS, wait * 2);
        }
      });
    },
  };

  let publishing: Promise<unknown> = Promise.resolve();
  const pubsub: PubSub = {
    publish(channel, payload) {
      const name = channelName(options.schemaName, channel);
      const text = JSON.stringify(payload);
      // One after the other: two NOTIFYs on two pool connections commit in either order, and the port
      // promises order per sender.
      publishing = publishing.then(() => options.pool().query('SELECT pg_notify($1, $2)', [name, text])).catch(report);
    },
    subscribe(channel, cb) {
      const name = channelName(options.schemaName, channel);
      emitter.on(name, cb);
      if (!listening.has(name)) {
        listening.add(name);
        // A session being opened LISTENs to everything in `listening` itself.
        if (client !== undefined) {
          const on = client;
          serial(() => on.query(`LISTEN ${quoteIdent(name)}`)).catch(report);
        } else if (!closed) void session().catch(report);
      }
      return () => emitter.off(name, cb);
    },
    onResume(cb) {
      resumed.on('resume', cb);
      return () => resumed.off('resume', cb);
    },
  };

  return {
    locks,
    pubsub,
    /** The session connection's state, for `Store.status`. */
    check: (): StoreCheck => check,
    /** Opens the session connection (subscriptions made before `open` are LISTENed then). */
    async open(): Promise<void> {
      closed = false;
      lost = false;
      await session();
    },
    /** Resolves once every message published so far has been handed to the database. */
    async flush(): Promise<void> {
      await publishing;
    },
    async close(): Promise<void> {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      retry = undefined;
      const ending = client ?? (await connecting?.catch(() => undefined));
      // Lets queued statements (an unlock, a LISTEN) finish before the connection ends.
      await queue;
      client = undefined;
      setCheck(false, 'closed');
      await ending?.end().catch(() => undefined);
    },
  };
}
