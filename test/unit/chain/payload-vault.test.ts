import { afterEach, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { createChainService } from '../../../src/domain/chain/chain.service.js';
import { createChainSummaries } from '../../../src/domain/chain/chain-summary.js';
import { genesisSeed } from '../../../src/domain/chain/hash-chain.js';
import type { MachineRecord } from '../../../src/domain/chain/machine.js';
import { createPayloadVault } from '../../../src/domain/chain/payload-vault.js';
import { createFakeClock } from '../../../src/lib/clock.js';
import { createEventBus } from '../../../src/domain/events.js';
import { digestOf } from '../../../src/lib/hash.js';
import { makeLowdbHarness } from '../../store/lowdb-harness.js';
import { storageOf } from '../../helpers/repositories.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function machineRecord(slug: string, tick = 100): MachineRecord {
  return {
    slug,
    display_name: null,
    purpose: null,
    is_public: false,
    status: 'active',
    owner_uid: 'uowner',
    genesis_tick: tick,
    genesis_hash: genesisSeed(slug, tick),
    created_at: new Date(0).toISOString(),
    updated_at: new Date(0).toISOString(),
  };
}

async function setup() {
  const harness = await makeLowdbHarness({ fsync: false });
  cleanups.push(harness.cleanup);
  const clock = createFakeClock();
  const chain = createChainService({ ...storageOf(harness.store), clock, bus: createEventBus() });
  return { ...harness, clock, chain };
}

describe('payload vault', () => {
  it('round-trips a payload bound to its row and refuses it under another row or machine', async () => {
    const { store } = await setup();
    const vault = createPayloadVault({ ...storageOf(store), now: () => 0 });
    await vault.ready();
    const m = machineRecord('vault-a');
    const sealed = vault.seal(m, 5, { slug: 'vault-a', row_seq: 3, transition_id: 't-1' }, { x: 1 });
    const stored = { ...sealed, seq: 0 };
    expect(JSON.stringify(stored)).not.toContain('"x"');
    expect(vault.open(m, stored, { slug: 'vault-a', row_seq: 3, transition_id: 't-1' })).toEqual({ x: 1 });
    expect(() => vault.open(m, stored, { slug: 'vault-a', row_seq: 4, transition_id: 't-1' })).toThrow();
    const other = machineRecord('vault-b');
    expect(() => vault.open(other, stored, { slug: 'vault-a', row_seq: 3, transition_id: 't-1' })).toThrow();
  });

  it('keeps the same master key across restarts so old payloads stay readable', async () => {
    const { store, reopen } = await setup();
    const m = machineRecord('vault-c');
    const chain = createChainService({ ...storageOf(store), clock: createFakeClock(), bus: createEventBus() });
    const row = await chain.append(m, { type: 'e', actor_uid: null, payload_digest: digestOf({ k: 'v' }), payload: { k: 'v' } });
    const reopened = await reopen();
    const again = createChainService({ ...storageOf(reopened), clock: createFakeClock(), bus: createEventBus() });
    expect(await again.payloadOf(m, row)).toEqual({ payload: { k: 'v' }, digest_matches: true });
  });
});

describe('chain summaries', () => {
  it('counts a row whose content was altered on disk as a broken link', async () => {
    const { store, chain, dataDir } = await setup();
    const m = machineRecord('sum-a');
    for (let i = 0; i < 3; i++) await chain.append(m, { type: `t${i}`, actor_uid: 'u1', payload_digest: digestOf({ i }) });
    const file = `${dataDir}/logs/chain%2Fsum-a.jsonl`;
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('"type":"t1"', '"type":"x1"'));
    const summary = await createChainSummaries(storageOf(store).chainLog).of(m);
    expect(summary).toMatchObject({ folded: 3, verified: 2, broken: 1 });
  });

  it('folds only the rows appended since the last read', async () => {
    const { store, chain } = await setup();
    const m = machineRecord('sum-b');
    const summaries = createChainSummaries(storageOf(store).chainLog);
    await chain.append(m, { type: 'a', actor_uid: null, payload_digest: digestOf(1) });
    expect((await summaries.of(m)).byType.get('a')?.count).toBe(1);
    await chain.append(m, { type: 'a', actor_uid: 'u2', payload_digest: digestOf(2) });
    const summary = await summaries.of(m);
    expect(summary.byType.get('a')?.count).toBe(2);
    expect([...summary.bySource.keys()].sort()).toEqual(['', 'u2']);
    expect(summary.verified).toBe(2);
  });
});
