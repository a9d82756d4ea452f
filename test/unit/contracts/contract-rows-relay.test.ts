import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createContractHub } from '../../../src/domain/contracts/contract-hub.js';
import { createContractEventRepository } from '../../../src/domain/contracts/contract-event-repository.js';
import { CONTRACT_ROWS_CHANNEL, createContractRowsRelay } from '../../../src/domain/contracts/contract-rows-relay.js';
import type { EventRecord } from '../../../src/domain/contracts/contract.types.js';
import { createLowdbStore } from '../../../src/storage/lowdb/lowdb.store.js';
import type { RowInput, Store } from '../../../src/storage/port.js';
import { createFakeNet } from '../../helpers/fake-net.js';
import { eventually } from '../../helpers/pg-wait.js';
import { storageOf } from '../../helpers/repositories.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Two "processes" on one store, each with its own hub and relay on a fake net; A streams the machine's events. */
async function rig() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rows-relay-'));
  const store = createLowdbStore({ dataDir: dir, fsync: false });
  await store.open();
  const net = createFakeNet();
  const errors: unknown[] = [];
  let readsByA = 0;
  const on = (name: string) => {
    const logs: Store['logs'] = { ...store.logs, read: (...args) => ((readsByA += name === 'a' ? 1 : 0), store.logs.read(...args)) };
    const view: Store = { ...store, logs, pubsub: net.pubsub(name) };
    return createContractRowsRelay({ ...storageOf(view), hub: createContractHub(), onError: (e) => errors.push(e) });
  };
  const a = on('a');
  const b = on('b');
  cleanups.push(async () => {
    await Promise.all([a.stop(), b.stop()]);
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const events = createContractEventRepository(store);
  /** Appends an event and publishes it through `relay`'s hub, as the engine does. */
  const emit = async (relay: typeof a, slug: string) => {
    const row = await events.appendEvent(
      slug,
      () => ({ type: 'beat', name: 'beat', contract_id: 'c1', payload: {}, created_at: '', tick: 0 }) as RowInput<EventRecord>,
    );
    relay.hub.publishEvent(slug, row);
    return row.seq;
  };
  const heardByB: number[] = [];
  net.pubsub('b').subscribe(CONTRACT_ROWS_CHANNEL, (m) => {
    for (const [, , last] of (m as { r: Array<[string, string, number]> }).r) heardByB.push(last);
  });
  const sent = (seq: number) => eventually(() => expect(Math.max(-1, ...heardByB)).toBeGreaterThanOrEqual(seq));
  return { net, a, b, emit, sent, errors, readsByA: () => readsByA };
}

describe('contract rows relay', () => {
  it('relays a row announced before it could be read with the next announcement, never skipping it', async () => {
    const { a, b, emit, readsByA, errors } = await rig();
    const got: number[] = [];
    a.hub.onEvent('m', (row) => got.push(row.seq));
    a.hub.started('events', 'm', -1);
    // An announcement of row 0 that A reads before the row is there (sent ahead of its commit).
    b.hub.publishEvent('m', { seq: 0, tick: 0, type: 'beat' } as EventRecord);
    await eventually(() => expect(readsByA()).toBe(1));
    expect(got).toEqual([]);
    await emit(b, 'm');
    await emit(b, 'm');
    await eventually(() => expect(got).toEqual([0, 1]));
    expect(errors).toEqual([]);
  });

  it("carries a machine's events to a stream in another process once, fills a lost message's gap, and catches up after an outage", async () => {
    const { net, a, b, emit, sent, errors } = await rig();
    const got: number[] = [];
    a.hub.onEvent('m', (row) => got.push(row.seq));
    a.hub.started('events', 'm', -1);
    await emit(b, 'm');
    await eventually(() => expect(got).toEqual([0]));
    // A's own event between B's: carried once.
    await emit(a, 'm');
    await emit(b, 'm');
    await eventually(() => expect(got).toEqual([0, 1, 2]));
    net.dropNext('a', CONTRACT_ROWS_CHANNEL);
    await sent(await emit(b, 'm'));
    await emit(b, 'm');
    await eventually(() => expect(got).toEqual([0, 1, 2, 3, 4]));
    net.cut('a');
    for (let i = 0; i < 3; i++) await emit(b, 'm');
    await sent(7);
    net.restore('a');
    await eventually(() => expect(got).toEqual([0, 1, 2, 3, 4, 5, 6, 7]));
    await emit(b, 'm');
    await eventually(() => expect(got).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]));
    expect(errors).toEqual([]);
  });

  it('reads nothing back for a machine no stream here listens to', async () => {
    const { a, b, emit, sent } = await rig();
    const got: number[] = [];
    a.hub.onEvent('other', (row) => got.push(row.seq));
    await sent(await emit(b, 'm'));
    await emit(b, 'other');
    await eventually(() => expect(got).toEqual([0]));
    expect(a.hub.listened()).toEqual({ events: ['other'], transitions: [] });
  });
});
