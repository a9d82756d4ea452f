import { describe, expect, it, vi } from 'vitest';
import { createContractRepository } from '../../src/domain/contracts/contract-repository.js';
import { genesisSeed, verifyChain, type ChainRow } from '../../src/domain/chain/hash-chain.js';
import type { MachineRecord } from '../../src/domain/chain/machine.js';
import { createChainLogRepository } from '../../src/domain/chain/chain-log-repository.js';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import type { DirServer } from '../helpers/durable-server.js';
import { eventually, listeningNow } from '../helpers/pg-wait.js';
import { openSse } from '../helpers/sse.js';
import { databaseUrl, SKIP_REASON } from '../store/postgres-harness.js';
import { twoNodes } from '../helpers/pg-nodes.js';
import { createMachine, mintKey } from '../helpers/server.js';

async function machineOn(server: DirServer, slug: string, isPublic = false): Promise<string> {
  const { key } = await mintKey(server);
  await createMachine(server, key, { slug, isPublic });
  return key;
}

const every = (ticks: number) => ({
  name: 'pulse',
  states: { running: { initial: true } },
  transitions: [{ from: 'running', to: 'running', operator: 'KO42', trigger: { kind: 'every', every_ticks: ticks } }],
});

async function chainRows(server: DirServer, slug: string): Promise<ChainRow[]> {
  return createChainLogRepository(server.core.store).read(slug);
}

function expectLinear(rows: ChainRow[], machine: MachineRecord): void {
  expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i));
  expect(verifyChain(rows, genesisSeed(machine.slug, machine.genesis_tick))).toMatchObject({ valid: true, broken_seq: null });
}

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('several servers on one PostgreSQL database', () => {
  it('fires each due tick of a recurring contract once, whichever server created it', async () => {
    const { a, b } = await twoNodes('cluster');
    const slug = `cl-fire-${Date.now().toString(36)}`;
    const key = await machineOn(a, slug);
    const ids: string[] = [];
    for (const [n, server] of [a, b, a, b].entries()) {
      const res = await server.call('POST', `/api/chain/${slug}/contracts`, { key, body: { definition: { ...every(1), name: `pulse-${n}` } } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(res.body.contract.id as string);
    }
    // Until every contract has fired three due ticks: the first two were each followed by a later fire.
    const rows = await eventually(async () => {
      const read = await createContractRepository(a.core.store).machineTransitions(slug);
      for (const id of ids) expect(read.filter((r) => r.contract_id === id).length).toBeGreaterThanOrEqual(3);
      return read;
    }, 100);
    for (const id of ids) {
      const mine = rows.filter((r) => r.contract_id === id);
      // One row per due tick, numbered without gaps and hash-linked: no fire was taken twice.
      const due = mine.map((r) => r.due_tick);
      expect(new Set(due).size).toBe(due.length);
      expect(mine.map((r) => r.n)).toEqual(mine.map((_, i) => i + 1));
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.prev_hash).toBe(mine[i - 1]!.state_hash);
    }
    const machine = (await createMachineRepository(a.core.store).get(slug))!;
    expectLinear(await chainRows(a, slug), machine);
  });

  it('fires a due tick after the process that claimed it died without firing', async () => {
    const { a, b, schema } = await twoNodes('cluster');
    const slug = `cl-dead-${Date.now().toString(36)}`;
    const key = await machineOn(a, slug);
    await a.core.services.contracts.scheduler.stop();
    await b.core.services.contracts.scheduler.stop();
    const res = await a.call('POST', `/api/chain/${slug}/contracts`, { key, body: { definition: every(1) } });
    const id = res.body.contract.id as string;
    // A third process claims the contract and dies (its session ends) before writing the fire.
    const doomed = createPostgresStore({ connectionString: databaseUrl!, schema });
    await doomed.open();
    let claimed!: () => void;
    const holding = new Promise<void>((resolve) => (claimed = resolve));
    void doomed.locks.run(`contract:${id}`, () => {
      claimed();
      return new Promise(() => undefined);
    });
    await holding;
    // B's claims of the contract that the dead holder refused: B is trying to fire it.
    let refused = 0;
    const tryRun = b.core.store.locks.tryRun.bind(b.core.store.locks);
    vi.spyOn(b.core.store.locks, 'tryRun').mockImplementation(async (key, fn) => {
      const outcome = await tryRun(key, fn);
      if (key === `contract:${id}` && !outcome.ran) refused++;
      return outcome;
    });
    await b.core.services.contracts.scheduler.start();
    await eventually(() => expect(refused).toBeGreaterThanOrEqual(3));
    expect(await createContractRepository(a.core.store).machineTransitions(slug, { types: [id] })).toHaveLength(0);
    await doomed.close().catch(() => undefined);
    const fired = await eventually(async () => {
      const read = await createContractRepository(a.core.store).machineTransitions(slug, { types: [id] });
      expect(read.length).toBeGreaterThanOrEqual(1);
      return read;
    }, 100);
    expect(fired[0]).toMatchObject({ n: 1, triggered_by: 'trigger' });
  });

  it('keeps one linear chain under concurrent appends through both servers', async () => {
    const { a, b } = await twoNodes('cluster');
    const slug = `cl-chain-${Date.now().toString(36)}`;
    const key = await machineOn(a, slug);
    const calls = Array.from({ length: 60 }, (_, i) =>
      (i % 2 ? a : b).call('POST', `/api/chain/${slug}/event`, { key, body: { type: 'tick', payload: { i } } }),
    );
    const answers = await Promise.all(calls);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    const machine = (await createMachineRepository(b.core.store).get(slug))!;
    const rows = await chainRows(b, slug);
    expect(rows.filter((r) => r.type === 'tick')).toHaveLength(60);
    expectLinear(rows, machine);
  });

  it('streams a row appended through one server to an SSE subscriber on the other', async () => {
    const { a, b } = await twoNodes('cluster');
    const slug = `cl-sse-${Date.now().toString(36)}`;
    const key = await machineOn(a, slug);
    const sse = await openSse(`${b.url}/api/chain/${slug}/explore/sse`, { authorization: `Bearer ${key}` });
    expect(sse.res.status).toBe(200);
    const events = sse.events;
    // B hears the append announcements it subscribed to at start (instead of sleeping until it may).
    await listeningNow(a.core.store.pubsub, b.core.store.pubsub);
    for (let i = 0; i < 3; i++) expect((await a.call('POST', `/api/chain/${slug}/event`, { key, body: { type: 'remote', payload: { i } } })).status).toBe(200);
    await eventually(() => expect(events.filter((e) => e.event === 'audit.appended').length).toBeGreaterThanOrEqual(3));
    const rows = events.filter((e) => e.event === 'audit.appended').map((e) => JSON.parse(e.data) as ChainRow);
    expect(rows.map((r) => r.type)).toEqual(['remote', 'remote', 'remote']);
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
  });
});
