import { afterEach, describe, expect, it } from 'vitest';
import { createAgentsService } from '../../../src/domain/agents/agents.service.js';
import { createPlanRepository } from '../../../src/domain/agents/plan-repository.js';
import { createChainService } from '../../../src/domain/chain/chain.service.js';
import { createMachineRepository } from '../../../src/domain/chain/machine-repository.js';
import type { Store } from '../../../src/storage/port.js';
import { startTestCore } from '../../helpers/server.js';
import { storageOf } from '../../helpers/repositories.js';

const plan = (title: string) => ({ title, goal: 'g', steps: [{ action: 'a' }] });

/** The store, except that the (n+1)-th write from now on throws before it happens: a crash at that point. */
function crashAfter(store: Store, n: number): Store & { crashed: () => boolean } {
  let left = n;
  let crashed = false;
  const gate =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      if (left-- <= 0) {
        crashed = true;
        return Promise.reject(new Error('simulated crash'));
      }
      return fn(...args);
    };
  const docs = store.docs;
  const logs = store.logs;
  return {
    ...store,
    crashed: () => crashed,
    docs: {
      ...docs,
      get: docs.get.bind(docs),
      list: docs.list.bind(docs),
      count: docs.count.bind(docs),
      insert: gate(docs.insert.bind(docs)),
      put: gate(docs.put.bind(docs)),
      update: gate(docs.update.bind(docs)) as Store['docs']['update'],
      delete: gate(docs.delete.bind(docs)),
    },
    logs: {
      ...logs,
      head: logs.head.bind(logs),
      count: logs.count.bind(logs),
      get: logs.get.bind(logs),
      read: logs.read.bind(logs),
      streams: logs.streams.bind(logs),
      append: gate(logs.append.bind(logs)) as Store['logs']['append'],
    },
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('plan locking after a crash', () => {
  it('leaves all or nothing whichever write the crash hits, and recovery never duplicates the audit row', async () => {
    let sawCompleteCrash = false;
    let sawEmptyCrash = false;
    for (let n = 0; ; n++) {
      const core = await startTestCore();
      cleanups.push(core.cleanup);
      const { uid } = await core.services.identity.mintDemoKey();
      await core.services.machines.create({ slug: 'crash' }, { uid, credential: 'user-key' });
      const machine = (await createMachineRepository(core.store).get('crash'))!;
      await core.services.agents.plans.lock(uid, machine, plan('v1'), uid);

      const store = crashAfter(core.store, n);
      const chain = createChainService({ ...storageOf(store), clock: core.clock, bus: core.bus });
      const doomed = createAgentsService({ ...storageOf(store), clock: core.clock, chain, machines: core.services.machines });
      const outcome = await doomed.plans.lock(uid, machine, plan('v2'), uid).then(
        () => 'done',
        () => 'crashed',
      );
      if (outcome === 'done') {
        expect(n).toBeGreaterThan(5);
        break;
      }

      // Restart: fresh services over what reached the store.
      const restarted = createAgentsService({ ...storageOf(core.store), clock: core.clock, chain: core.services.chain, machines: core.services.machines });
      const current = await restarted.plans.current(uid, 'crash');
      const v2 = await createPlanRepository(core.store).version(uid, 'crash', 2);
      const audits = (await core.services.chain.activity(machine, { type: 'plan_locked', limit: 10 })).rows;
      const state = await restarted.state.get(uid);
      const v1 = await createPlanRepository(core.store).version(uid, 'crash', 1);
      expect(await createPlanRepository(core.store).intent(uid, 'crash')).toBeUndefined();
      if (v2) {
        sawCompleteCrash = true;
        expect(current?.plan_id).toBe('crash@v2');
        expect(audits).toHaveLength(2);
        expect(audits.filter((r) => r.transition_id === v2.lock_id)).toHaveLength(1);
        expect(v1).toMatchObject({ status: 'superseded', superseded_by: 'crash@v2' });
        expect(state.protocol.current_plan_id).toBe('crash@v2');
        expect(await createPlanRepository(core.store).head(uid, 'crash')).toMatchObject({ latest_version: 2 });
      } else {
        sawEmptyCrash = true;
        expect(current?.plan_id).toBe('crash@v1');
        expect(audits).toHaveLength(1);
        expect(v1?.status).toBe('locked');
        expect(state.protocol.current_plan_id).toBe('crash@v1');
      }
      const next = await restarted.plans.lock(uid, machine, plan('after'), uid);
      expect(next.plan.version).toBe(v2 ? 3 : 2);
    }
    expect(sawCompleteCrash && sawEmptyCrash).toBe(true);
  });

  it('does not move the current plan back when an older lock is replayed', async () => {
    const core = await startTestCore();
    cleanups.push(core.cleanup);
    await core.services.agents.state.setCurrentPlan('a1', { plan_id: 'm2@v1', slug: 'm2', locked_ms: 2000 });
    await core.services.agents.state.setCurrentPlan('a1', { plan_id: 'm1@v1', slug: 'm1', locked_ms: 1000 });
    await core.services.agents.state.setCurrentPlan('a1', { plan_id: 'm2@v1', slug: 'm2', locked_ms: 2000 });
    const state = await core.services.agents.state.get('a1');
    expect(state).toMatchObject({ revision: 1, protocol: { current_plan_id: 'm2@v1' } });
  });
});
