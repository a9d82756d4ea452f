import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import type { RunOutcome, SandboxRunner } from '../../src/domain/sandbox/sandbox-runner.js';
import { createSandboxService } from '../../src/domain/sandbox/sandbox.service.js';
import { tempDir, testConfig } from '../helpers/server.js';
import { storageOf } from '../helpers/repositories.js';

/**
 * Re-check at every wait: a sandbox run accepted under a delegation or a key, then
 * made to wait for a slot, re-checks that right when the slot frees. Revoked meanwhile: 403, not run,
 * not charged. The slots are held by runs the test ends itself (no timing).
 */
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (stops.length > 0) await stops.pop()!();
});

/** A runner whose runs end only when the test says so; `startedAt(n)` resolves once `n` runs have started. */
function gatedRunner() {
  const started: Array<{ code: string; finish: () => void }> = [];
  const waits: Array<{ n: number; resolve: () => void }> = [];
  const startedAt = (n: number) => new Promise<void>((resolve) => (started.length >= n ? resolve() : waits.push({ n, resolve })));
  const runner: SandboxRunner = {
    ready: async () => undefined,
    run: (request) =>
      new Promise<RunOutcome>((resolve) => {
        const outcome = { exit_code: 0, reason: 'exit' as const, stdout: '', stderr: '', stdout_truncated: false, stderr_truncated: false, duration_ms: 10 };
        started.push({ code: request.code, finish: () => resolve(outcome) });
        for (const w of waits.filter((w) => w.n <= started.length)) w.resolve();
      }),
  };
  return { runner, started, startedAt };
}

async function start() {
  const { dir, cleanup } = await tempDir();
  const { runner, started, startedAt } = gatedRunner();
  const running: RunningServer = await startHttpServer({ config: testConfig(dir), log: createLogger('silent') });
  // The sandbox with runs the test ends itself (bubblewrap is not needed, and no run ends by a timer).
  const { core } = running;
  core.services.sandbox = createSandboxService({ ...storageOf(core.store), clock: core.clock, runner });
  stops.push(async () => {
    for (const s of started) s.finish();
    await running.stop(1000);
    await cleanup();
  });
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const mint = async () => (await (await fetch(`${running.url}/api/demo-key/mint`, { method: 'POST' })).json()) as { key: string; uid: string };
  return { call, mint, started, startedAt };
}

/**
 * An agent that delegated write access to the owner of machine `slug`, and both sandbox slots held by a
 * third agent's runs; `waiting` is the owner's run for the agent (with `ownerKey`), reserved and queued.
 */
async function queuedDelegateRun(slug: string, useMachineKey: boolean) {
  const server = await start();
  const [owner, agent, holder] = [await server.mint(), await server.mint(), await server.mint()];
  const made = await server.call('POST', '/api/chain/state-machines', owner.key, { slug });
  expect(made.status).toBe(200);
  expect((await server.call('POST', `/api/chain/${slug}/admins`, owner.key, { uid: agent.uid, role: 'operator' })).status).toBe(200);
  expect((await server.call('POST', `/api/agent/${agent.uid}/delegations`, agent.key, { slug, access: 'write' })).status).toBe(200);
  const holding = [0, 1].map((i) => server.call('POST', `/api/agent/${holder.uid}/sandbox/run`, holder.key, { code: `hold(${i})` }));
  await server.startedAt(2);

  const delegateKey = useMachineKey ? (made.body.api_key as string) : owner.key;
  const waiting = server.call('POST', `/api/agent/${agent.uid}/sandbox/run`, delegateKey, { slug, code: 'print("charged to the agent")' });
  // Its reservation is counted on the agent's quota from admission: it is queued behind the held slots.
  await vi.waitFor(async () => expect((await server.call('GET', `/api/agent/${agent.uid}/sandbox/quota`, agent.key)).body.runs_used).toBe(1), {
    timeout: 60_000,
  });
  return { server, owner, agent, made, holding, waiting };
}

describe('a sandbox run waiting for a slot', () => {
  it('is refused when it would start, not run and not charged, once the agent revoked the delegation', async () => {
    const { server, agent, holding, waiting } = await queuedDelegateRun('wait-deleg', false);
    expect((await server.call('DELETE', `/api/agent/${agent.uid}/delegations/wait-deleg`, agent.key)).status).toBe(200);

    server.started[0]!.finish();
    // Whichever comes first: the answer, or (on code that does not re-check) the run starting.
    const refused = await Promise.race([waiting, server.startedAt(3).then(() => ({ status: 0, body: 'the revoked run started' as any }))]);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/not started and nothing was charged.*has not delegated/);
    expect(server.started.map((s) => s.code)).toEqual(['hold(0)', 'hold(1)']);
    expect((await server.call('GET', `/api/agent/${agent.uid}/sandbox/quota`, agent.key)).body.runs_used).toBe(0);
    expect((await server.call('GET', `/api/agent/${agent.uid}/sandbox/runs`, agent.key)).body.runs).toEqual([]);
    server.started[1]!.finish();
    expect((await Promise.all(holding)).map((r) => r.status)).toEqual([200, 200]);
  });

  it('is refused when it would start, not run and not charged, once the key it was accepted with was revoked', async () => {
    const { server, owner, agent, made, holding, waiting } = await queuedDelegateRun('wait-key', true);
    const revoked = await server.call('DELETE', `/api/chain/wait-key/api-keys/${made.body.api_key_id as string}`, owner.key);
    expect(revoked.body).toMatchObject({ ok: true, revoked: true });

    server.started[0]!.finish();
    // Whichever comes first: the answer, or (on code that does not re-check) the run starting.
    const refused = await Promise.race([waiting, server.startedAt(3).then(() => ({ status: 0, body: 'the revoked run started' as any }))]);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/not started and nothing was charged.*expired or was revoked/);
    expect(server.started).toHaveLength(2);
    expect((await server.call('GET', `/api/agent/${agent.uid}/sandbox/quota`, agent.key)).body.runs_used).toBe(0);
    server.started[1]!.finish();
    await Promise.all(holding);
  });

  it('still runs, charged to the agent, when the right holds at slot start', async () => {
    const { server, agent, holding, waiting } = await queuedDelegateRun('wait-ok', false);
    server.started[0]!.finish();
    await server.startedAt(3);
    server.started[2]!.finish();
    const ran = await waiting;
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ ok: true, slug: 'wait-ok', quota: { runs_used: 1 } });
    server.started[1]!.finish();
    await Promise.all(holding);
    expect((await server.call('GET', `/api/agent/${agent.uid}/sandbox/runs`, agent.key)).body.runs).toHaveLength(1);
  });
});
