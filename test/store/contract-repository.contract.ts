import { describe, expect, it } from 'vitest';
import { createContractEventRepository } from '../../src/domain/contracts/contract-event-repository.js';
import { createContractRepository, FireAlreadyStoredError, type TransitionDraft } from '../../src/domain/contracts/contract-repository.js';
import { contractGenesis, transitionHash } from '../../src/domain/contracts/contract-runtime.js';
import type { ContractRecord, ContractStatus } from '../../src/domain/contracts/contract.types.js';
import { DuplicateKeyError, type Store } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const contract = (id: string, slug: string, status: ContractStatus = 'active', template_id: string | null = null): ContractRecord => ({
  id,
  slug,
  name: id,
  template_id,
  status,
  definition: { name: id, states: { idle: { initial: true } }, transitions: [] },
  integrity_hash: 'h',
  current_version_no: 1,
  created_by: 'u',
  created_at: 't',
  updated_at: 't',
  created_tick: 10,
  anchor_tick: 10,
  skip_floor: {},
});

const draft = (tick: number): TransitionDraft =>
  ({
    contract_id: 'c1',
    transition_type: 'manual',
    tick_number: tick,
    from_state: 'idle',
    to_state: 'idle',
    transition_index: 0,
    operators: [],
    input: {},
    result: null,
    success: true,
    error: null,
    error_message: null,
    triggered_by: 'caller',
    proof_digest: null,
    receipt: null,
    due_tick: null,
    skipped: 0,
    fire_count: 1,
    entered_tick: tick,
    watermarks: {},
    emitted: [],
    version_no: 1,
  }) as unknown as TransitionDraft;

/** The contract repository (records, transition and version logs) and the contract-event repository on every adapter. */
export function runContractRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`contract repository: ${name}`, () => {
    it('refuses a second fire of a due tick offered without the lock, even when it read the contract before the first was written', async () => {
      const { store } = await freshStore(makeStore);
      const record = contract('c1', 'm');
      await createContractRepository(store).insert(record);
      const fired = (due: number, other = false): TransitionDraft =>
        ({ ...draft(due), ...(other ? { contract_id: 'c2' } : {}), due_tick: due, watermarks: { t0: due } }) as TransitionDraft;
      // Two fires of due tick 20, as two processes whose claims overlapped would make them: the second
      // read the contract, then the first wrote its row (and, in one round, another contract wrote after
      // it), then the second offers its row.
      for (const between of [false, true]) {
        const due = between ? 30 : 20;
        let offered!: () => void;
        const offering = new Promise<void>((resolve) => (offered = resolve));
        let written!: () => void;
        const firstWritten = new Promise<void>((resolve) => (written = resolve));
        const late: Store = {
          ...store,
          logs: {
            ...store.logs,
            append: async (stream, build, expect) => {
              offered();
              await firstWritten;
              return store.logs.append(stream, build, expect);
            },
          },
        };
        const second = createContractRepository(late).appendTransition(record, fired(due), { key: 't0', due });
        await offering;
        await createContractRepository(store).appendTransition(record, fired(due), { key: 't0', due });
        if (between) await createContractRepository(store).appendTransition(contract('c2', 'm'), fired(due, true));
        written();
        await expect(second).rejects.toBeInstanceOf(FireAlreadyStoredError);
      }
      const rows = await createContractRepository(store).machineTransitions('m');
      expect(rows.filter((r) => r.contract_id === 'c1').map((r) => [r.n, r.due_tick])).toEqual([
        [1, 20],
        [2, 30],
      ]);
      // A later due tick fires on the chain as it stands.
      const next = await createContractRepository(store).appendTransition(record, fired(40), { key: 't0', due: 40 });
      expect(next.prev_hash).toBe(rows.filter((r) => r.contract_id === 'c1').at(-1)!.state_hash);
    });

    it('lands scheduled fires of many contracts of one machine offered at once, each once, and refuses a repeated due tick', async () => {
      const { store } = await freshStore(makeStore);
      const records = Array.from({ length: 40 }, (_, i) => contract(`k${i}`, 'busy'));
      for (const record of records) await createContractRepository(store).insert(record);
      const contracts = createContractRepository(store);
      const fired = (due: number) => ({ ...draft(due), due_tick: due, watermarks: { t0: due } }) as TransitionDraft;
      // Every contract shares the machine's stream: each append meets the rows of all the others.
      await Promise.all(records.map((record) => contracts.appendTransition(record, fired(20), { key: 't0', due: 20 })));
      const again = await Promise.allSettled(
        records.flatMap((record, i) => [
          contracts.appendTransition(record, fired(30), { key: 't0', due: 30 }),
          ...(i % 4 === 0 ? [createContractRepository(store).appendTransition(record, fired(20), { key: 't0', due: 20 })] : []),
        ]),
      );
      expect(again.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason)).toEqual(
        Array.from({ length: 10 }, () => expect.any(FireAlreadyStoredError)),
      );
      const rows = await contracts.machineTransitions('busy');
      expect(rows).toHaveLength(80);
      for (const record of records) {
        expect(rows.filter((r) => r.contract_id === record.id).map((r) => [r.n, r.due_tick])).toEqual([
          [1, 20],
          [2, 30],
        ]);
      }
    });

    it('finds a machine’s contracts by status and template, in creation order, and every contract of a status', async () => {
      const { store } = await freshStore(makeStore);
      const contracts = createContractRepository(store);
      await contracts.insert(contract('c1', 'm', 'active', 't1'));
      await contracts.insert(contract('c2', 'n', 'active'));
      await contracts.insert(contract('c3', 'm', 'paused', 't1'));
      await contracts.insert(contract('c4', 'm', 'active'));
      await expect(contracts.insert(contract('c1', 'm'))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect((await contracts.bySlug('m')).map((c) => c.id)).toEqual(['c1', 'c3', 'c4']);
      expect((await contracts.bySlug('m', { status: 'active' })).map((c) => c.id)).toEqual(['c1', 'c4']);
      expect((await contracts.bySlug('m', { template_id: 't1' })).map((c) => c.id)).toEqual(['c1', 'c3']);
      await contracts.update('c1', (c) => ({ ...c, status: 'killed' }));
      expect(await contracts.update('cx', (c) => c)).toBeUndefined();
      expect((await contracts.withStatus('active')).map((c) => c.id)).toEqual(['c2', 'c4']);
      expect((await contracts.list()).map((c) => c.id)).toEqual(['c1', 'c2', 'c3', 'c4']);
      expect((await contracts.list((c) => c.slug === 'n')).map((c) => c.id)).toEqual(['c2']);
      const newest = await contracts.newest({}, { limit: 3 });
      expect(newest.items.map((c) => c.id)).toEqual(['c4', 'c3', 'c2']);
      expect((await contracts.newest({}, { limit: 3, after: newest.next! })).items.map((c) => c.id)).toEqual(['c1']);
      expect((await contracts.newest({ template_id: 't1' }, { limit: 5 })).items.map((c) => c.id)).toEqual(['c3', 'c1']);
    });

    it('links each contract’s transitions from its genesis and reads the runtime from its last row', async () => {
      const { store } = await freshStore(makeStore);
      const record = contract('c1', 'm');
      const contracts = createContractRepository(store);
      await contracts.insert(record);
      await contracts.insert(contract('c2', 'm'));
      const first = await contracts.appendTransition(record, draft(11));
      await contracts.appendTransition(contract('c2', 'm'), draft(11));
      const second = await contracts.appendTransition(record, draft(12));
      expect(first.prev_hash).toBe(contractGenesis('c1', 10));
      expect(second.prev_hash).toBe(first.state_hash);
      expect(second.state_hash).toBe(transitionHash(second as unknown as Record<string, unknown>));
      expect((await contracts.recentTransitions(record, 5)).map((r) => r.n)).toEqual([2, 1]);
      expect((await contracts.transitions(record, { afterSeq: first.seq, limit: 5 })).map((r) => r.id)).toEqual(['c1:2']);
      expect(await contracts.transitionCount('m')).toBe(3);
      await contracts.appendVersion(record, {
        n: 1,
        contract_id: 'c1',
        definition: record.definition,
        definition_hash: 'h',
        created_by: 'u',
        tick_number: 10,
        created_at: 't',
        note: null,
        rolled_back_from: null,
      });
      expect(await contracts.slugsWithTransitions()).toEqual(['m']);
      expect((await contracts.versions(record)).map((v) => v.n)).toEqual([1]);
      expect((await contracts.machineTransitions('m', { fromSeq: 1 })).map((r) => r.id)).toEqual(['c2:1', 'c1:2']);
      // A second repository over the same store reads the runtime from the rows, not from a cache.
      expect((await createContractRepository(store).runtime(record)).n).toBe(2);
    });

    it('keeps a machine’s emitted events and its inbox apart', async () => {
      const { store } = await freshStore(makeStore);
      const events = createContractEventRepository(store);
      await events.appendEvent('m', () => ({ tick: 1, type: 'ping', name: 'ping', contract_id: 'c1', payload: {}, created_at: 't' }));
      await events.appendEvent('m', (head) => ({ tick: (head?.tick ?? 0) + 1, type: 'pong', name: 'pong', contract_id: 'c1', payload: {}, created_at: 't' }));
      await events.appendInbox('m', () => ({ tick: 1, type: 'src/ping', name: 'ping', source_slug: 'src', payload: { v: 1 } }));
      expect(await events.eventCount('m')).toBe(2);
      expect((await events.events('m', { types: ['pong'] })).map((e) => e.tick)).toEqual([2]);
      expect((await events.inbox('m')).map((r) => r.payload)).toEqual([{ v: 1 }]);
      expect(await events.eventCount('n')).toBe(0);
    });
  });
}
