import type { Store } from '../../src/storage/port.js';
import {
  createFixture,
  kill9,
  load,
  ok,
  recovered,
  seeded,
  serve,
  SLUG,
  stopGracefully,
  verifyStore,
  type Acked,
  type Fixture,
  type Known,
  type Served,
  type Verified,
} from './crash-harness.js';

export interface CrashLoopOptions {
  name: string;
  /** Environment of the spawned server (data directory or database and schema). */
  env: Record<string, string>;
  /** Opens the store the server uses, in this process, while the server is down. */
  openStore: () => Promise<Store>;
}

export interface CrashLoopResult extends Verified {
  seed: number;
  kills: number;
  acked_events: number;
  acked_plan_locks: number;
  acked_envelopes: number;
  /** Fire and envelope audit rows and fire envelopes the kills cut off, summed over the checks (each recovered after its restart). */
  gaps_seen: number;
  requests: number;
  ms: number;
}

const DEFAULT_SEED = 20261122;
const DEFAULT_KILLS = 20;

/**
 * Starts the server, loads it with writes, kills it with SIGKILL at a random moment (100-600 ms into
 * most lives, 2.2-3 s into every fifth, from a seeded generator), checks the store, restarts, and again, `CRASH_KILLS` times.
 * A failure names the seed and the life it happened in.
 */
export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopResult> {
  const seed = Number(process.env.CRASH_SEED ?? DEFAULT_SEED);
  const kills = Number(process.env.CRASH_KILLS ?? DEFAULT_KILLS);
  const random = seeded(seed);
  const started = Date.now();
  const acked: Acked = { events: [], plans: [], envelopes: [] };
  let served: Served | undefined;
  let life = 0;
  let requests = 0;
  let restartTick = 0;
  // Fires and envelopes found at the previous check: the restart after it must have audited every one.
  let known: Known = new Set();
  let gaps = 0;
  try {
    served = await serve(options.env);
    await recovered(served);
    const fx: Fixture = await createFixture(served.url);
    for (life = 1; life <= kills; life++) {
      const controller = new AbortController();
      // Mostly short lives; every fifth a long one, since a fresh process's first compute loads mathjs
      // (about 2 s here), so envelopes are acknowledged, and killed, only in longer lives.
      const lifeMs = life % 5 === 0 ? 2200 + Math.floor(random() * 800) : 100 + Math.floor(random() * 500);
      const running = load(served.url, fx, acked, life, controller.signal);
      await new Promise((resolve) => setTimeout(resolve, lifeMs));
      await kill9(served);
      controller.abort();
      requests += await running;
      let t = Date.now();
      const checked = await check(options, fx, acked, known);
      ({ known } = checked);
      gaps += checked.firesWithoutAuditRow + checked.envelopesWithoutAuditRow + checked.firesWithoutEnvelope;
      const checkMs = Date.now() - t;
      t = Date.now();
      served = await serve(options.env);
      // The next life starts once the restart's audit recovery is done: the next check requires its rows.
      await recovered(served);
      if (process.env.CRASH_DEBUG) console.error(`life ${life}: ${lifeMs} ms, check ${checkMs} ms, start ${Date.now() - t} ms`);
      // The restarted server validates the chain itself, and accepts writes at once.
      const validation = await ok(served.url, 'GET', `/api/chain/${SLUG}/pohc/validate`, fx.key);
      if (validation.valid !== true) throw new Error(`pohc/validate after restart: ${JSON.stringify(validation)}`);
      restartTick = validation.to as number;
    }
    // The scheduler resumes after the last restart: a fire stamped at or after the restart arrives (a tick is 777 ms).
    // The limit only catches a scheduler that never resumes; on a loaded machine a fire can take seconds.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const page = await ok(served.url, 'GET', `/api/chain/${SLUG}/contracts/${fx.contractId}/audit?since_tick=${restartTick}&limit=1`, fx.key);
      if (page.transitions.length > 0) break;
      if (Date.now() > deadline) throw new Error(`no contract fire since the last restart at tick ${restartTick}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await stopGracefully(served);
    const { known: _final, ...verified } = await check(options, fx, acked, 'all');
    return {
      seed,
      kills: life - 1,
      acked_events: acked.events.length,
      acked_plan_locks: acked.plans.length,
      acked_envelopes: acked.envelopes.length,
      gaps_seen: gaps,
      requests,
      ...verified,
      ms: Date.now() - started,
    };
  } catch (error) {
    const tail = served?.stderr().split('\n').slice(-5).join('\n') ?? '';
    throw new Error(
      `crash test (${options.name}) failed in life ${life} with seed ${seed} (rerun with CRASH_SEED=${seed}): ${(error as Error).message}\nlast server log lines:\n${tail}`,
      { cause: error },
    );
  } finally {
    if (served) await kill9(served);
  }
}

async function check(options: CrashLoopOptions, fx: Fixture, acked: Acked, mustBeAudited: ReadonlySet<string> | 'all'): Promise<Verified & { known: Known }> {
  const store = await options.openStore();
  try {
    return await verifyStore(store, fx, acked, mustBeAudited);
  } finally {
    await store.close();
  }
}
