import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createChainService } from '../../../src/domain/chain/chain.service.js';
import type { MachineRecord } from '../../../src/domain/chain/machine.js';
import { createMachineRepository } from '../../../src/domain/chain/machine-repository.js';
import { createStreamsService } from '../../../src/domain/chain/streams.service.js';
import { createFakeClock } from '../../../src/lib/clock.js';
import { createEventBus } from '../../../src/domain/events.js';
import type { SseEvent } from '../../../src/lib/handler-results.js';
import { createLowdbStore } from '../../../src/storage/lowdb/lowdb.store.js';
import { eventually } from '../../helpers/pg-wait.js';
import { storageOf } from '../../helpers/repositories.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SLUG = 'goes-private';

/** A public machine with a few rows, and a public-only explore stream source of it (as an anonymous reader gets). */
async function setup() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stream-private-'));
  const store = createLowdbStore({ dataDir: dir, fsync: false });
  await store.open();
  const bus = createEventBus();
  const chain = createChainService({ ...storageOf(store), clock: createFakeClock(), bus });
  const streams = createStreamsService({ ...storageOf(store), bus, chain });
  cleanups.push(async () => {
    streams.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const machines = createMachineRepository(store);
  const record: MachineRecord = {
    slug: SLUG,
    display_name: null,
    purpose: null,
    is_public: true,
    status: 'active',
    owner_uid: 'owner',
    genesis_tick: 0,
    genesis_hash: 'g',
    created_at: new Date(0).toISOString(),
    updated_at: new Date(0).toISOString(),
  };
  await machines.insert(record);
  const append = (m: MachineRecord) => chain.append(m, { type: 'test.row', actor_uid: 'owner', payload_digest: 'd' });
  for (let i = 0; i < 3; i++) await append(record);
  /** Turns the machine private in the store; returns the record as a writer then holds it. */
  const makePrivate = async () => (await machines.update(SLUG, (m) => ({ ...m!, is_public: false })))!;
  /** Opens the stream; `ended` says whether the source ended itself (the transport then closes the response). */
  const open = (lastEventId?: string) => {
    const got: SseEvent[] = [];
    let ended = 0;
    const close = streams.explore(record, { publicOnly: true }).open(
      (e) => void got.push(e),
      lastEventId,
      () => void (ended += 1),
    );
    cleanups.push(async () => close());
    return { got, ended: () => ended };
  };
  return { record, append, makePrivate, open };
}

describe('explore stream of a public machine that turns private (public-only reader)', () => {
  it('ends the stream when a private row arrives live, delivering none of it', async () => {
    const { record, append, makePrivate, open } = await setup();
    const stream = open('2');
    await append(record);
    await eventually(() => expect(stream.got.map((e) => e.id)).toEqual(['3']));
    const now = await makePrivate();
    await append(now);
    // The old code closed its relay only: the response stayed open and silent, and the client never reconnected.
    await eventually(() => expect(stream.ended()).toBe(1));
    await append(now);
    expect(stream.got.map((e) => e.id)).toEqual(['3']);
  });

  it('ends the stream when it finds the machine private while catching up', async () => {
    const { makePrivate, open } = await setup();
    await makePrivate();
    // Resumed from seq 0 after the machine turned private: the replay's visibility check refuses it.
    const stream = open('0');
    await eventually(() => expect(stream.ended()).toBe(1));
    expect(stream.got).toEqual([]);
  });
});
