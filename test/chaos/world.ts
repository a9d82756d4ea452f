import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { tickOf, tickStartMs } from '../../src/lib/clock.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import type { Store } from '../../src/storage/port.js';
import { call, type Tally } from './load.js';

/** Longest wait on an event (a fire, a row reaching a stream, a process answering): a hang-catcher only. */
export const HANG_MS = 90_000;

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; false if it still did not after `limitMs` (the caller asserts on what it counts then). */
export async function waitUntil(check: () => boolean | Promise<boolean>, limitMs = HANG_MS, gapMs = 100): Promise<boolean> {
  const end = Date.now() + limitMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await pause(gapMs);
  }
}

/** Sleeps until `offsetMs` after the next tick starts: the scheduler fires then, so claims are held. */
export async function justAfterNextTick(offsetMs = 20): Promise<void> {
  await pause(Math.max(0, tickStartMs(tickOf(Date.now()) + 1) - Date.now() + offsetMs));
}

/** A contract firing on every `every`-th tick. */
export const pulse = (name: string, every: number) => ({
  name,
  states: { running: { initial: true } },
  transitions: [{ from: 'running', to: 'running', operator: 'KO42', trigger: { kind: 'every', every_ticks: every } }],
});

/** Runs `fn` on a store of its own over the shared schema (another reader, as far as the database can tell), then closes it. */
export async function observe<T>(url: string, schema: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = createPostgresStore({ connectionString: url, schema });
  await store.open();
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * Quota'd creates: a fresh identity creates machines through every process in turn, against the
 * `machines` quota. `admitted` counts the 2xx answers; the store's count is the truth checked.
 */
export async function quotaIdentity(tally: Tally, urls: () => string[]) {
  const minted = await call(tally, urls()[0]!, 'POST', '/api/demo-key/mint', undefined, {});
  if (minted.status !== 200) throw new Error(`mint: ${minted.status} ${JSON.stringify(minted.body)}`);
  const { key, uid } = minted.body as { key: string; uid: string };
  let n = 0;
  let admitted = 0;
  let stopped = false;
  const create = async () => {
    const i = n++;
    const url = urls()[i % urls().length]!;
    const res = await call(tally, url, 'POST', '/api/chain/state-machines', key, { slug: `q-${uid.slice(-8).toLowerCase()}-${i}` });
    if (res.status >= 200 && res.status < 300) admitted++;
  };
  const loop = (async () => {
    while (!stopped) {
      await create();
      await pause(250);
    }
  })();
  return {
    uid,
    admitted: () => admitted,
    /** Stops the paced creates, then offers `burst` concurrent ones, so admission that resumed fills the quota. */
    async finish(burst: number) {
      stopped = true;
      await loop;
      await Promise.all(Array.from({ length: burst }, create));
    },
    owned: (store: Store) => createMachineRepository(store).countOwnedBy(uid),
  };
}
