import { describe, expect, it, onTestFinished } from 'vitest';
import type { Caller } from '../../src/domain/identity/caller.js';
import { createSandboxService } from '../../src/domain/sandbox/sandbox.service.js';
import type { SandboxRunner } from '../../src/domain/sandbox/sandbox-runner.js';
import type { MachineRecord } from '../../src/domain/chain/machine.js';
import { startServerOn, type DirServer } from '../helpers/durable-server.js';
import { createMachine, mintKey, tempDir } from '../helpers/server.js';
import { databaseUrl, dropSchema, SKIP_REASON, uniqueSchema } from '../store/postgres-harness.js';
import { storageOf } from '../helpers/repositories.js';

/** Two servers on one fresh PostgreSQL schema: two processes, as far as the database can tell. */
async function twoServers(): Promise<[DirServer, DirServer]> {
  const schema = uniqueSchema();
  const started: DirServer[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  onTestFinished(async () => {
    await Promise.all(started.map((s) => s.stop(1000)));
    await dropSchema(schema);
    await Promise.all(cleanups.map((c) => c()));
  });
  const start = async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const server = await startServerOn(dir, { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema });
    started.push(server);
    return server;
  };
  // One after the other: the first applies the migrations.
  const a = await start();
  return [a, await start()];
}

async function ownerWithMachine(server: DirServer, slug: string): Promise<{ caller: Caller; uid: string }> {
  const { key, uid } = await mintKey(server);
  await createMachine(server, key, { slug });
  return { uid, caller: { uid, credential: 'user-key' } };
}

/** Settles both calls and returns the fulfilled values and the error codes of the rejected ones. */
async function race<T>(a: () => Promise<T>, b: () => Promise<T>): Promise<{ won: T[]; codes: string[] }> {
  const outcomes = await Promise.allSettled([a(), b()]);
  return {
    won: outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : [])),
    codes: outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as { code?: string }).code ?? o.reason)] : [])),
  };
}

const genesisInput = { name: 'Race', symbol: 'RC', max_supply: 1_000_000, mint_rate_per_tick: 1_000_000 };

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('one-shot operations across two servers on one PostgreSQL schema', () => {
  it('lets exactly one of two concurrent token geneses of a machine win, the other a 409', async () => {
    const [a, b] = await twoServers();
    const { caller } = await ownerWithMachine(a, 'race-genesis');
    const { won, codes } = await race(
      () => a.core.services.tally.genesis('race-genesis', genesisInput, caller),
      () => b.core.services.tally.genesis('race-genesis', genesisInput, caller),
    );
    expect(won).toHaveLength(1);
    expect(codes).toEqual(['CONFLICT']);
    expect((await b.core.services.tally.tokenInfo('race-genesis', caller)).token.token_hash).toBe(won[0]!.token.token_hash);
  });

  it('credits one daily claim and one idempotent conversion when both servers take them at once', async () => {
    const [a, b] = await twoServers();
    const uid = 'u_race_credits';
    const claims = await race(
      () => a.core.services.credits.claim(uid),
      () => b.core.services.credits.claim(uid),
    );
    expect(claims.won).toHaveLength(1);
    expect(claims.codes).toEqual(['CONFLICT']);
    const converts = await race(
      () => a.core.services.credits.convert(uid, 100, 'same-key'),
      () => b.core.services.credits.convert(uid, 100, 'same-key'),
    );
    expect(converts.won.map((c) => c.replayed).sort()).toEqual([false, true]);
    expect(converts.won[0]!.conversion_id).toBe(converts.won[1]!.conversion_id);
    expect(await b.core.services.credits.conversion(uid)).toMatchObject({ credits_balance: 28, wallet_balance: 100 });
  });

  it('gives two plans locked at once through both servers distinct version numbers', async () => {
    const [a, b] = await twoServers();
    const { uid } = await ownerWithMachine(a, 'race-plans');
    const machine = (await a.core.store.docs.get<MachineRecord>('machines', 'race-plans'))!;
    expect(machine).toBeDefined();
    const plan = (n: number) => ({ title: `plan ${n}`, goal: 'race', steps: [{ action: `step ${n}` }] });
    const locks = await Promise.all([
      a.core.services.agents.plans.lock(uid, machine, plan(1), uid),
      b.core.services.agents.plans.lock(uid, machine, plan(2), uid),
    ]);
    expect(locks.map((l) => l.plan.version).sort()).toEqual([1, 2]);
    const history = await a.core.services.agents.plans.history(uid, 'race-plans', { limit: 10 });
    expect(history.plans.map((p) => [p.version, p.status])).toEqual([
      [2, 'locked'],
      [1, 'superseded'],
    ]);
  });

  it('opens one contribution seat per uid and locks an envelope for one stake only', async () => {
    const [a, b] = await twoServers();
    const { uid, caller } = await ownerWithMachine(a, 'race-seats');
    await a.core.services.tally.genesis('race-seats', genesisInput, caller);
    // Supply accrues per tick from genesis; grant it all now instead of waiting for ticks.
    await a.core.store.docs.update<{ accrual: { tick: number; allowance: number } }>(
      'tally-tokens',
      'race-seats',
      (t) => t && { ...t, accrual: { tick: t.accrual.tick, allowance: genesisInput.max_supply } },
    );
    const envelopes: string[] = [];
    for (let n = 0; n < 3; n++) {
      const minted = await a.core.services.tally.mintEnvelope({ slug: 'race-seats', caller, kind: 'solve', resultDigest: 'ab'.repeat(32), value: 1000 });
      if (!minted.minted) throw new Error(`not minted: ${minted.reason}`);
      envelopes.push(minted.envelope.token_id);
    }
    // The first census stores the seat totals; the racing bonds below keep them from two processes.
    expect((await a.core.services.contribute.census()).bonded_value).toBe(0);
    // Two different envelopes, so only the seat count can refuse the second seat.
    const seats = await race(
      () => a.core.services.contribute.bond(uid, { token_ids: [envelopes[0]!] }),
      () => b.core.services.contribute.bond(uid, { token_ids: [envelopes[1]!] }),
    );
    const seatCount = (await a.core.store.docs.list<{ uid: string }>('contribute-seats', (s) => s.uid === uid)).length;
    expect(seatCount).toBe(1);
    const stored = await a.core.store.docs.list<{ bonded_token_ids: string[]; bonded_value: number }>('contribute-seats');
    expect(await b.core.services.contribute.census()).toMatchObject({
      seats_active: 1,
      bonded_envelopes: stored.reduce((n, s) => n + s.bonded_token_ids.length, 0),
      bonded_value: stored.reduce((n, s) => n + s.bonded_value, 0),
    });
    // The loser either found the seat and added to it, or was refused: never a second seat.
    expect(seats.won.length + seats.codes.length).toBe(2);
    // One envelope staked twice from two processes (the insert community stakes and bonds go through).
    const row = (await a.core.services.tally.ledger.get(envelopes[2]!))!;
    const stakes = await race(
      () => a.core.services.tally.ledger.lockAll([row], { kind: 'vote', ref: 'p_a', tick: 1 }, uid),
      () => b.core.services.tally.ledger.lockAll([row], { kind: 'vote', ref: 'p_b', tick: 1 }, uid),
    );
    expect(stakes.won).toHaveLength(1);
    expect(stakes.codes).toEqual(['CONFLICT']);
  });

  it('keeps the sandbox quota across processes: two runs at once for the last slot, one admitted', async () => {
    const [a, b] = await twoServers();
    // A run ends only once the other call settled or also started, so the reservation alone must refuse the second.
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const runner: SandboxRunner = {
      ready: async () => undefined,
      async run() {
        if (++started === 2) release();
        await hold;
        return { exit_code: 0, reason: 'exit', stdout: '', stderr: '', stdout_truncated: false, stderr_truncated: false, duration_ms: 10 } as never;
      },
    };
    const limits = { windowMs: 24 * 3600_000, runs: 1, unitsMz: 60_000, minRunMs: 100 };
    const on = (server: DirServer) => createSandboxService({ ...storageOf(server.core.store), clock: server.core.clock, runner, limits });
    const input = { code: 'true', timeout_ms: 1000, slug: null, actor_uid: 'u_race_sandbox' };
    const call = (server: DirServer) =>
      on(server)
        .run('u_race_sandbox', input)
        .catch((err: unknown) => {
          release();
          throw err;
        });
    const outcomes = await Promise.allSettled([call(a), call(b)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { code?: string }).code] : []))).toEqual(['QUOTA_EXCEEDED']);
    expect(await on(b).quota('u_race_sandbox')).toMatchObject({ runs_used: 1 });
  });
});
