import { createCore, type Core } from '../../../src/compose.js';
import { createFakeClock, tickStartMs, type FakeClock } from '../../../src/lib/clock.js';
import { createLogger } from '../../../src/log.js';
import type { Caller } from '../../../src/domain/identity/caller.js';
import type { TransitionRecord } from '../../../src/domain/contracts/contract.types.js';
import { tempDir, testConfig } from '../../helpers/server.js';

/** A tick start well inside the fake clock's default era. */
export const T0 = 2_287_000_000;

export const OWNER: Caller = { uid: 'uowner0000000001', credential: 'user-key' };

export interface Harness {
  core: Core;
  clock: FakeClock;
  dir: string;
  /** Sets the clock to the start of `tick` (plus `ms`) and runs one scheduler pass. */
  runAt(tick: number, ms?: number): Promise<void>;
  /** Runs a pass at every tick from the current one up to `tick`, inclusive. */
  walkTo(tick: number): Promise<void>;
  deploy(definition: unknown, slug?: string): Promise<string>;
  rows(id: string, slug?: string): Promise<TransitionRecord[]>;
  /** Closes the core and opens a new one on the same data directory (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A core on a temp dir with a fake clock and machine `m1`. The scheduler's own timer is stopped: tests
 * drive passes with `runDue`, so nothing fires behind their back.
 */
export async function harness(
  opts: { clock?: FakeClock; machines?: Array<{ slug: string; is_public?: boolean }>; env?: Record<string, string> } = {},
): Promise<Harness> {
  const clock = opts.clock ?? createFakeClock(tickStartMs(T0));
  const { dir, cleanup } = await tempDir('core-contracts-');
  const open = async () => {
    const core = await createCore({ config: testConfig(dir, opts.env), log: createLogger('silent'), clock });
    await core.services.contracts.scheduler.stop();
    return core;
  };
  let core = await open();
  for (const m of opts.machines ?? [{ slug: 'm1' }]) await core.services.machines.create(m, OWNER);
  const h: Harness = {
    get core() {
      return core;
    },
    clock,
    dir,
    async runAt(tick, ms = 0) {
      clock.set(tickStartMs(tick) + ms);
      await core.services.contracts.scheduler.runDue();
      await core.services.contracts.settled();
    },
    async walkTo(tick) {
      for (let t = Math.floor(clock.now() / 777); t <= tick; t++) await h.runAt(t);
    },
    async deploy(definition, slug = 'm1') {
      const { contract } = await core.services.contracts.crud.create(slug, OWNER, { definition });
      return contract.id;
    },
    async rows(id, slug = 'm1') {
      const record = await core.services.contracts.core.find(slug, id);
      return core.services.contracts.core.contracts.transitions(record, { limit: 100_000 });
    },
    async restart() {
      await core.close();
      core = await open();
      // A restarted core loads every schedule on start: do the same without the timer.
      await core.services.contracts.scheduler.start();
      await core.services.contracts.scheduler.stop();
    },
    async close() {
      await core.close();
      await cleanup();
    },
  };
  return h;
}

/** A one-state contract with one scheduled self-transition. */
export function selfLoop(trigger: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    name: 'loop',
    states: { on: { initial: true } },
    transitions: [{ from: 'on', to: 'on', operator: 'KO42', trigger, ...extra }],
  };
}
