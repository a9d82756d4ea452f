import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { backoffDelay } from '../../lib/backoff.js';
import { afterCommit } from '../../lib/commit-scope.js';
import type { Json, PubSub, StoreCheck } from '../port.js';
import type { TxContext } from './pg-context.js';
import { escapeLiteral } from './pg-log-sql.js';
import { quoteIdent } from './sql.js';

/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more (its default build). */
const NOTIFY_PAYLOAD_MAX = 8000;

/** A NOTIFY as a statement of its own, to be sent in one query text with others. */
const notifyStatement = (channel: string, payload: string) => `SELECT pg_notify(${escapeLiteral(channel)}, ${escapeLiteral(payload)})`;

/** First pause before reconnecting a dropped session connection; doubles per failed try up to the cap. */
const RECONNECT_BASE_MS = 100;
const RECONNECT_CAP_MS = 5_000;

/** The pause before reconnect try `attempt` (0-based). */
export function reconnectDelay(attempt: number): number {
  return backoffDelay(attempt, RECONNECT_BASE_MS, RECONNECT_CAP_MS);
}

/** What the session connection did, for the server's log and metrics. */
export type SessionEvent =
  { kind: 'lost'; error?: Error; losses: number } | { kind: 'resumed'; downMs: number; attempts: number } | { kind: 'retry'; error: Error; attempt: number };

export interface PgSessionOptions {
  connectionString: string;
  /** Channels are scoped to the schema, so stores on two schemas of one database never meet. */
  schemaName: string;
  /** The pool NOTIFY goes through (a message needs no session). */
  pool: () => pg.Pool;
  /** The caller's lock transaction, if any: a message published in one is sent when it commits. */
  tx: () => TxContext | undefined;
  onError?: (error: Error) => void;
  /** Told of each loss, failed try and return of the session connection. */
  onEvent?: (event: SessionEvent) => void;
  /** The pause before reconnect try `attempt` (default `reconnectDelay`); tests shorten it. */
  backoff?: (attempt: number) => number;
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
 * One connection per process, kept for its session: it LISTENs to the channels this process subscribed
 * to. (Locks live in the writing transaction, see `pg-locks.ts`: nothing correct rests on this
 * connection.) When it drops it is opened again for as long as the store is open, with exponential
 * backoff and jitter, re-LISTENs every channel and calls the `onResume` listeners: messages sent
 * meanwhile were missed, and readers catch up from the logs.
 */
export function createPgSession(options: PgSessionOptions) {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const listening = new Set<string>();
  const backoff = options.backoff ?? reconnectDelay;
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let closed = true;
  let retry: NodeJS.Timeout | undefined;
  // One statement at a time on the session client (a LISTEN), in order.
  let queue: Promise<unknown> = Promise.resolve();
  const resumed = new EventEmitter();
  resumed.setMaxListeners(0);
  /** Since when the connection is down (it was up before), and how many tries failed since. */
  let down: { since: number; attempts: number } | undefined;
  let losses = 0;
  let check: StoreCheck = { ok: false, detail: 'not open', since_ms: Date.now() };
  const setCheck = (ok: boolean, detail?: string) => {
    if (check.ok !== ok || check.detail !== detail) check = { ok, ...(detail ? { detail } : {}), since_ms: check.ok === ok ? check.since_ms! : Date.now() };
  };
  function serial<T>(query: () => Promise<T>): Promise<T> {
    const result = queue.then(query, query);
    queue = result.catch(() => undefined);
    return result;
  }
  const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));
  const report = (error: unknown) => options.onError?.(asError(error));

  async function connect(): Promise<pg.Client> {
    const fresh = new pg.Client({
      connectionString: options.connectionString,
      application_name: 'core-server session',
      keepAlive: true,
      connectionTimeoutMillis: RECONNECT_CAP_MS,
    });
    fresh.on('error', (error) => drop(fresh, error));
    fresh.on('end', () => drop(fresh));
    fresh.on('notification', (message) => {
      if (message.payload === undefined) return;
      try {
        emitter.emit(message.channel, JSON.parse(message.payload) as Json);
      } catch (error) {
        report(error);
      }
    });
    try {
      await fresh.connect();
      // Not shared yet: the only statements on it. A channel subscribed meanwhile is LISTENed by `session`.
      for (const name of [...listening]) await fresh.query(`LISTEN ${quoteIdent(name)}`);
    } catch (error) {
      fresh.removeAllListeners('end');
      await fresh.end().catch(() => undefined);
      throw error;
    }
    return fresh;
  }

  function drop(which: pg.Client, error?: Error): void {
    if (client !== which) return;
    client = undefined;
    losses += 1;
    down = { since: Date.now(), attempts: 0 };
    setCheck(false, 'the session connection was lost; reconnecting');
    options.onEvent?.({ kind: 'lost', ...(error ? { error } : {}), losses });
    if (error) report(error);
    which.end().catch(() => undefined);
    schedule();
  }

  /** Plans the next try, unless one is planned or running or the store closed. */
  function schedule(): void {
    if (closed || retry !== undefined || connecting !== undefined || client !== undefined) return;
    retry = setTimeout(
      () => {
        retry = undefined;
        session().catch((error: unknown) => {
          if (down !== undefined) down.attempts += 1;
          setCheck(false, `the session connection is down; reconnecting (${asError(error).message})`);
          options.onEvent?.({ kind: 'retry', error: asError(error), attempt: down?.attempts ?? 0 });
          schedule();
        });
      },
      backoff(down?.attempts ?? 0),
    );
    retry.unref();
  }

  function session(): Promise<pg.Client> {
    if (closed) return Promise.reject(new Error('the store is not open'));
    if (client !== undefined) return Promise.resolve(client);
    connecting ??= connect().then(
      (c) => {
        connecting = undefined;
        if (closed) {
          c.removeAllListeners('end');
          void c.end().catch(() => undefined);
          throw new Error('the store is not open');
        }
        client = c;
        setCheck(true);
        // Channels subscribed while it was being opened.
        for (const name of listening) serial(() => c.query(`LISTEN ${quoteIdent(name)}`)).catch((error: unknown) => drop(c, asError(error)));
        if (down !== undefined) {
          const was = down;
          down = undefined;
          options.onEvent?.({ kind: 'resumed', downMs: Date.now() - was.since, attempts: was.attempts });
          resumed.emit('resume');
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

  let publishing: Promise<unknown> = Promise.resolve();
  /** NOTIFYs waiting for the one on the wire: they go out together next, in one round trip, in order. */
  let waiting: string[] | undefined;
  function sendOnPool(name: string, text: string): void {
    if (waiting !== undefined) return void waiting.push(notifyStatement(name, text));
    const batch = (waiting = [notifyStatement(name, text)]);
    publishing = publishing
      .then(() => {
        if (waiting === batch) waiting = undefined;
        return options.pool().query(batch.join('; '));
      })
      .catch(report);
  }
  const pubsub: PubSub = {
    publish(channel, payload) {
      const name = channelName(options.schemaName, channel);
      const text = JSON.stringify(payload);
      const tx = options.tx();
      // Refused here, not by the server: a statement that fails in a lock transaction aborts all of it, and
      // in a batch it would take the other messages with it.
      const bytes = Buffer.byteLength(text);
      if (bytes >= NOTIFY_PAYLOAD_MAX)
        return report(new Error(`message on ${channel} not sent: payload string too long (${bytes} bytes; NOTIFY takes fewer than ${NOTIFY_PAYLOAD_MAX})`));
      // In a lock transaction: NOTIFY is transactional, so the message goes out at COMMIT, or never: it is
      // sent with the COMMIT, in the same round trip.
      if (tx !== undefined) return void (tx.notices ??= []).push(notifyStatement(name, text));
      // A lock transaction that is committing takes no more statements, and a message sent meanwhile on
      // the pool would reach listeners before the rows it announces are visible (they read nothing and
      // move on): it waits for the commit, and is dropped with a rollback, as the transactional one is.
      // Then one after the other: two NOTIFYs on two pool connections commit in either order, and the
      // port promises order per sender.
      afterCommit(() => sendOnPool(name, text));
    },
    subscribe(channel, cb) {
      const name = channelName(options.schemaName, channel);
      emitter.on(name, cb);
      if (!listening.has(name)) {
        listening.add(name);
        // A session being opened LISTENs to everything in `listening`; a dropped one will on its return.
        if (client !== undefined) {
          const on = client;
          serial(() => on.query(`LISTEN ${quoteIdent(name)}`)).catch((error: unknown) => drop(on, asError(error)));
        }
      }
      return () => emitter.off(name, cb);
    },
    onResume(cb) {
      resumed.on('resume', cb);
      return () => resumed.off('resume', cb);
    },
  };

  return {
    pubsub,
    /** The session connection's state, for `Store.status` (`losses`: how often it was lost since open). */
    check: (): StoreCheck => ({ ...check, losses }),
    /** Opens the session connection (subscriptions made before `open` are LISTENed then). */
    async open(): Promise<void> {
      closed = false;
      down = undefined;
      losses = 0;
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
      // Lets queued statements (a LISTEN) finish before the connection ends.
      await queue;
      client = undefined;
      setCheck(false, 'closed');
      if (ending !== undefined) {
        ending.removeAllListeners('end');
        await ending.end().catch(() => undefined);
      }
    },
  };
}
