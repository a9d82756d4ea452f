import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createChainService } from '../../src/domain/chain/chain.service.js';
import type { ChainRow } from '../../src/domain/chain/hash-chain.js';
import { createChainLogRepository } from '../../src/domain/chain/chain-log-repository.js';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createTallyRepository } from '../../src/domain/economy/tally-repository.js';
import type { EnvelopeRow } from '../../src/domain/economy/tally-token.js';
import { createFakeClock, type FakeClock } from '../../src/lib/clock.js';
import { createEventBus } from '../../src/domain/events.js';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import { createLowdbStore } from '../../src/storage/lowdb/lowdb.store.js';
import { advisoryKey } from '../../src/storage/postgres/pg-session.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import type { Store } from '../../src/storage/port.js';
import { eventually } from '../helpers/pg-wait.js';
import { tempDir, testConfig } from '../helpers/server.js';
import { databaseUrl, dropSchema, uniqueSchema } from '../store/postgres-harness.js';
import { storageOf } from '../helpers/repositories.js';

const SLUG = 'recovery-box';
const CONTRACT = 'ctr_recovery';

interface Backend {
  env: Record<string, string>;
  /** Stopped between starts, advanced by hand: the token's supply accrues per tick. */
  clock: FakeClock;
  open(): Promise<Store>;
}

async function post(server: RunningServer, path: string, body: unknown, key?: string): Promise<any> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const start = (dir: string, backend: Backend) => startHttpServer({ config: testConfig(dir, backend.env), log: createLogger('silent'), clock: backend.clock });

/**
 * What a kill leaves behind, written straight to the store: a successful fire and an envelope whose
 * chain rows were never appended (the envelope's writer is a process that no longer runs), next to a
 * fire and an envelope that do have theirs.
 */
async function writeCrashLeftovers(
  store: Store,
  uid: string,
  clock: FakeClock,
): Promise<{ fireId: string; envelopeId: string; auditedFire: string; auditedEnvelope: string; paidFire: string; refusedFire: string }> {
  const machine = (await createMachineRepository(store).get(SLUG))!;
  const chain = createChainService({ ...storageOf(store), clock, bus: createEventBus() });
  const fire = (n: number, envelopeFor?: string) =>
    // Raw rows as a crashed writer left them, outside the repository that would hash-link them.
    store.logs.append(`contracts/${SLUG}/transitions`, (head) => ({
      tick: Math.max(machine.genesis_tick, head?.tick ?? 0),
      type: CONTRACT,
      id: `${CONTRACT}:${n}`,
      n,
      contract_id: CONTRACT,
      success: true,
      from_state: 'running',
      to_state: 'running',
      proof_digest: null,
      tick_number: machine.genesis_tick,
      due_tick: machine.genesis_tick + n,
      skipped: 0,
      triggered_by: 'trigger',
      version_no: 1,
      emitted: [],
      operators: ['KO42'],
      result: { value: n },
      receipt: null,
      ...(envelopeFor ? { envelope_for: envelopeFor } : {}),
    }));
  const envelope = (seq: number, writer: string | undefined, transitionId?: string) =>
    createTallyRepository(store).appendEnvelope(SLUG, (head) => ({
      tick: Math.max(machine.genesis_tick, head?.tick ?? 0),
      type: 'envelope',
      token_id: `env_recovery_${seq}`,
      token_hash: `${seq}`.padStart(64, 'a'),
      machine_slug: SLUG,
      value: 1,
      source: 'compute',
      result_digest: '0'.repeat(64),
      issued_to: null,
      signature: 'none',
      minted_total: seq + 1,
      created_at: new Date().toISOString(),
      ...(writer ? { writer } : {}),
      ...(transitionId ? { transition_id: transitionId, source: 'contract_fire' } : {}),
    }));
  await fire(1);
  await chain.append(machine, { type: 'contract.transition', actor_uid: null, payload_digest: '1'.repeat(64), transition_id: `${CONTRACT}:1` });
  await envelope(0, undefined);
  await chain.append(machine, { type: 'tally.minted', actor_uid: null, payload_digest: '0'.padStart(64, 'a'), transition_id: 'env_recovery_0' });
  // Killed after its transition row: neither its audit row nor its envelope were written.
  await fire(2, uid);
  await envelope(1, 'a-process-killed-before-its-audit-row');
  // Killed after its envelope (with its audit row), before its own audit row: only that row is missing.
  await fire(3, uid);
  await envelope(2, 'a-process-killed-before-its-audit-row', `${CONTRACT}:3`);
  await chain.append(machine, { type: 'tally.minted', actor_uid: null, payload_digest: '2'.padStart(64, 'a'), transition_id: 'env_recovery_2' });
  // Audited, but its mint was refused (say the supply had run out): decided, so left without an envelope.
  await fire(4, uid);
  await chain.append(machine, { type: 'contract.transition', actor_uid: null, payload_digest: '4'.repeat(64), transition_id: `${CONTRACT}:4` });
  return {
    fireId: `${CONTRACT}:2`,
    envelopeId: 'env_recovery_1',
    auditedFire: `${CONTRACT}:1`,
    auditedEnvelope: 'env_recovery_0',
    paidFire: `${CONTRACT}:3`,
    refusedFire: `${CONTRACT}:4`,
  };
}

async function chainRows(store: Store): Promise<ChainRow[]> {
  return createChainLogRepository(store).read(SLUG);
}

/** The fire's envelopes (a fire has at most one). */
async function envelopesOf(store: Store, fireId: string): Promise<EnvelopeRow[]> {
  return (await createTallyRepository(store).envelopes(SLUG)).filter((e) => e.transition_id === fireId);
}

/** What the recovery did for the leftovers: each missing row and envelope once, nothing else. */
async function expectRecovered(store: Store, ids: Awaited<ReturnType<typeof writeCrashLeftovers>>, uid: string) {
  const rows = await chainRows(store);
  expectOnce(rows, 'contract.transition', ids.fireId, true);
  expectOnce(rows, 'tally.minted', ids.envelopeId, true);
  expectOnce(rows, 'contract.transition', ids.paidFire, true);
  expectOnce(rows, 'contract.transition', ids.auditedFire, false);
  expectOnce(rows, 'tally.minted', ids.auditedEnvelope, false);
  expectOnce(rows, 'contract.transition', ids.refusedFire, false);
  // The fire cut off before its mint got its envelope, issued to whom its row names, with its audit row.
  const [minted, ...more] = await envelopesOf(store, ids.fireId);
  expect(more).toEqual([]);
  expect(minted).toMatchObject({ source: 'contract_fire', issued_to: uid, recovered: true, value: 1 });
  expectOnce(rows, 'tally.minted', minted!.token_id, false);
  expect(await envelopesOf(store, ids.paidFire)).toHaveLength(1);
  expect(await envelopesOf(store, ids.refusedFire)).toHaveLength(0);
  expect(await createTallyRepository(store).envelopeCount(SLUG)).toBe(4);
  return rows;
}

function expectOnce(rows: ChainRow[], type: string, id: string, recovered: boolean) {
  const found = rows.filter((r) => r.type === type && r.transition_id === id);
  expect(found, `${type} rows for ${id}`).toHaveLength(1);
  expect(found[0]!.recovered === true).toBe(recovered);
}

/** Creates the machine through the API, stops, writes the crash's leftovers, and returns the data directory. */
async function crashedStore(dir: string, backend: Backend): Promise<{ key: string; uid: string; ids: Awaited<ReturnType<typeof writeCrashLeftovers>> }> {
  const first = await start(dir, backend);
  const { key, uid } = await post(first, '/api/demo-key/mint', {});
  await post(first, '/api/chain/state-machines', { slug: SLUG }, key);
  await post(
    first,
    `/api/chain/${SLUG}/tally/token/genesis`,
    { name: 'Recovery', symbol: 'RCV', max_supply: 1_000_000_000, mint_rate_per_tick: 1_000_000 },
    key,
  );
  await first.stop(1000);
  const store = await backend.open();
  try {
    const ids = await writeCrashLeftovers(store, uid, backend.clock);
    // Ten ticks later: supply for the envelopes the recovery mints has accrued.
    backend.clock.advance(10 * 777);
    return { key, uid, ids };
  } finally {
    await store.close();
  }
}

describe('audit recovery after a crash (lowdb)', () => {
  it('appends the missing fire and envelope audit rows and mints the missing fire envelopes once, marked recovered, and never again on the next start', async () => {
    const { dir, cleanup } = await tempDir('core-recovery-');
    const backend: Backend = {
      clock: createFakeClock(Date.now()),
      env: { DATABASE_URL: '', DATABASE_SCHEMA: '' },
      open: async () => {
        const store = createLowdbStore({ dataDir: dir, fsync: false });
        await store.open();
        return store;
      },
    };
    try {
      const { key, uid, ids } = await crashedStore(dir, backend);
      const second = await start(dir, backend);
      const report = await second.core.services.auditRecovery.idle();
      expect(report).toMatchObject({ fires: 2, envelopes: 1, minted: 1, deferred: 0 });
      // The API shows the late rows as such, and the chain still verifies with them.
      const res = await fetch(`${second.url}/api/chain/${SLUG}/pohc/validate`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await res.json()) as { valid: boolean }).valid).toBe(true);
      const rows = await expectRecovered(second.core.store, ids, uid);
      await second.stop(1000);

      const third = await start(dir, backend);
      expect(await third.core.services.auditRecovery.idle()).toMatchObject({ fires: 0, envelopes: 0, minted: 0 });
      expect(await chainRows(third.core.store)).toHaveLength(rows.length);
      expect(await createTallyRepository(third.core.store).envelopeCount(SLUG)).toBe(4);
      await third.stop(1000);
    } finally {
      await cleanup();
    }
  });
});

describe.skipIf(databaseUrl === undefined)('audit recovery after a crash (PostgreSQL, two processes)', () => {
  it('appends each missing audit row exactly once when two cores recover the same store at the same time', async () => {
    const { dir, cleanup } = await tempDir('core-recovery-pg-');
    const schema = uniqueSchema('recovery');
    const backend: Backend = {
      clock: createFakeClock(Date.now()),
      env: { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema },
      open: async () => {
        const store = createPostgresStore({ connectionString: databaseUrl!, schema });
        await store.open();
        return store;
      },
    };
    const running: RunningServer[] = [];
    try {
      const { uid, ids } = await crashedStore(dir, backend);
      running.push(...(await Promise.all([start(dir, backend), start(dir, backend)])));
      const reports = await Promise.all(running.map((s) => s.core.services.auditRecovery.idle()));
      const [a, b] = reports;
      // One of them appended each row; the other found it there (or the envelope's writer lock taken, and left it).
      expect((a?.fires ?? 0) + (b?.fires ?? 0)).toBe(2);
      expect((a?.envelopes ?? 0) + (b?.envelopes ?? 0)).toBe(1);
      expect((a?.minted ?? 0) + (b?.minted ?? 0)).toBe(1);
      for (const s of running) await s.core.services.auditRecovery.runOnce();
      await expectRecovered(running[0]!.core.store, ids, uid);
    } finally {
      for (const s of running) await s.stop(1000);
      await dropSchema(schema);
      await cleanup();
    }
  });
});

describe.skipIf(databaseUrl === undefined)('the writer claim core-writer:<id> (PostgreSQL, two processes)', () => {
  /** Two processes on one fresh schema with a machine that has a token; the test's work, then cleanup. */
  async function twoProcesses(work: (a: RunningServer, b: RunningServer, ctx: { schema: string; uid: string }) => Promise<void>) {
    const { dir, cleanup } = await tempDir('core-claim-pg-');
    const schema = uniqueSchema('claim');
    const backend: Backend = {
      clock: createFakeClock(Date.now()),
      env: { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema },
      open: () => Promise.reject(new Error('not used')),
    };
    const running: RunningServer[] = [];
    try {
      running.push(await start(dir, backend));
      const { key, uid } = await post(running[0]!, '/api/demo-key/mint', {});
      await post(running[0]!, '/api/chain/state-machines', { slug: SLUG }, key);
      await post(
        running[0]!,
        `/api/chain/${SLUG}/tally/token/genesis`,
        { name: 'Claim', symbol: 'CLM', max_supply: 1_000_000_000, mint_rate_per_tick: 1_000_000 },
        key,
      );
      backend.clock.advance(10 * 777);
      running.push(await start(dir, backend));
      await Promise.all(running.map((s) => s.core.services.auditRecovery.idle()));
      await work(running[0]!, running[1]!, { schema, uid });
    } finally {
      for (const s of running) await s.stop(1000);
      await dropSchema(schema);
      await cleanup();
    }
  }

  /** The backend holding the advisory lock of `key` in `schema` (an int8 key is classid:objid, objsubid 1). */
  async function holderOf(schema: string, key: string): Promise<number | undefined> {
    const admin = new pg.Client({ connectionString: databaseUrl! });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
           AND ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
        [advisoryKey(schema, key)],
      );
      return rows[0]?.pid;
    } finally {
      await admin.end();
    }
  }

  it('is taken again after its backend is terminated, so the other process goes on deferring to it', async () => {
    await twoProcesses(async (a, b, { schema }) => {
      const claim = `core-writer:${a.core.services.auditRecovery.writer}`;
      const first = await holderOf(schema, claim);
      expect(first).toBeDefined();
      const admin = new pg.Client({ connectionString: databaseUrl! });
      await admin.connect();
      try {
        await admin.query('SELECT pg_terminate_backend($1, 10000)', [first]);
      } finally {
        await admin.end();
      }
      // Taken again on another connection (the old code never took it again: the lock stayed free).
      await eventually(async () => {
        const now = await holderOf(schema, claim);
        expect(now).toBeDefined();
        expect(now).not.toBe(first);
      });
      expect((await b.core.store.locks.tryRun(claim, () => Promise.resolve())).ran).toBe(false);
    });
  });

  it("never doubles an envelope's tally.minted row when another process recovers while the writer's claim is lost", async () => {
    await twoProcesses(async (a, b, { uid }) => {
      // A's claim lost (as when its backend is terminated and before it is taken again): B may recover A's envelopes.
      await a.core.services.auditRecovery.stop();
      const chain = a.core.services.chain;
      const append = chain.append.bind(chain);
      let reached!: () => void;
      const atRow = new Promise<void>((resolve) => (reached = resolve));
      let go!: () => void;
      const gate = new Promise<void>((resolve) => (go = resolve));
      // A mints; it is held just before its envelope's tally.minted row is appended.
      chain.append = async (machine, input) => {
        if (input.type === 'tally.minted') {
          reached();
          await gate;
        }
        return append(machine, input);
      };
      const minting = a.core.services.tally.mintEnvelope({
        slug: SLUG,
        caller: { uid, credential: 'user-key' },
        kind: 'compute',
        resultDigest: 'c'.repeat(64),
        value: 1,
      });
      await atRow;
      // B's recovery pass meanwhile: the old code saw A's envelope without its row (its claim free) and appended it.
      await b.core.services.auditRecovery.runOnce();
      go();
      const outcome = await minting;
      expect(outcome.minted).toBe(true);
      const tokenId = (outcome as { envelope: EnvelopeRow }).envelope.token_id;
      await b.core.services.auditRecovery.runOnce();
      expectOnce(await chainRows(b.core.store), 'tally.minted', tokenId, false);
    });
  });
});
