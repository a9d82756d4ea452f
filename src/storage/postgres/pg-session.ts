import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { createLocalLocks } from '../local-coordination.js';
import type { Json, LockStore, PubSub } from '../port.js';
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

  async function tryAdvisory(key: string): Promise<{ id: string; on: pg.Client } | undefined> {
    const on = await session();
    const id = advisoryKey(options.schemaName, key);
    const { rows } = await serial(() => on.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [id]));
    return rows[0]?.ok ? { id, on } : undefined;
  }

  async function release(held: { id: string; on: pg.Client }): Promise<void> {
    await serial(async () => {
      // A dropped session released its locks already (checked when the turn comes, not before queueing).
      if (held.on !== client) return;
      await held.on.query('SELECT pg_advisory_unlock($1::bigint)', [held.id]);
    }).catch(report);
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

  const pubsub: PubSub = {
    publish(channel, payload) {
      const name = channelName(options.schemaName, channel);
      let pool: pg.Pool;
      try {
        pool = options.pool();
      } catch (error) {
        return report(error);
      }
      pool.query('SELECT pg_notify($1, $2)', [name, JSON.stringify(payload)]).catch(report);
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
        }
        else if (!closed) void session().catch(report);
      }
      return () => emitter.off(name, cb);
    },
  };

  return {
    locks,
    pubsub,
    /** Opens the session connection (subscriptions made before `open` are LISTENed then). */
    async open(): Promise<void> {
      closed = false;
      await session();
    },
    async close(): Promise<void> {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      retry = undefined;
      const ending = client ?? (await connecting?.catch(() => undefined));
      // Lets queued statements (an unlock, a LISTEN) finish before the connection ends.
      await queue;
      client = undefined;
      await ending?.end().catch(() => undefined);
    },
  };
}
