import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { QuotasService } from '../quotas/quotas.service.js';
import type { EventBus } from '../events.js';
import { digestOf } from '../../lib/hash.js';
import type { LockStore, PubSub, StoreBackend } from '../../storage/port.js';
import type { Caller } from '../identity/caller.js';
import type { ChainService } from '../chain/chain.service.js';
import { type MachineRecord } from '../chain/machine.js';
import type { MachinesService } from '../chain/machines.service.js';
import type { NodeKeys } from '../identity/node-keys.js';
import { evaluateAggregate } from './aggregate.js';
import { evaluateCondition } from './condition.js';
import { CONTRACT_OWNERS, createConditionAllowance, type ConditionAllowance } from './condition-allowance.js';
import { createContractEngine, type ContractEngine } from './contract-engine.js';
import { createContractHub, type ContractHub } from './contract-hub.js';
import { createContractRowsRelay } from './contract-rows-relay.js';
import { FireAlreadyStoredError, type ContractRepository } from './contract-repository.js';
import { secretsOf, type ContractRecord, type Definition, type Runtime } from './contract.types.js';
import { validateDefinition } from './definition-validate.js';
import { createEventRouter, type Delivery, type EventRouter } from './event-router.js';
import { callerOf, createListenerAccess, principalOf } from './listener-access.js';
import type { ContractReceipts, OperatorRegistry } from './operator-run.js';
import { nextScheduled } from './schedule.js';
import { createScheduleRelay } from './contract-schedule-relay.js';
import { CLAIMED_ELSEWHERE, ContractScheduler } from './scheduler.js';
import { collapse, isEventTrigger, triggerEvents } from './triggers.js';
import type { MintOutcome, MintRequest } from '../economy/envelope-mint.js';
import type { MachineRepository } from '../chain/machine-repository.js';
import type { ContractEventRepository } from './contract-event-repository.js';

export interface ContractsDeps {
  machineRecords: MachineRepository;
  contractRecords: ContractRepository;
  contractEvents: ContractEventRepository;
  locks: LockStore;
  pubsub: PubSub;
  /** On a store other processes share (not `lowdb`), runtimes are re-read under locks and rows relayed. */
  backend: StoreBackend;
  clock: Clock;
  bus: EventBus;
  chain: ChainService;
  machines: MachinesService;
  nodeKeys: NodeKeys;
  operators: OperatorRegistry;
  /** The receipts area; absent: local HMAC receipts. */
  receipts?: ContractReceipts;
  /** Mints the envelope of a successful fire (the economy area, looked up at call time); never throws. */
  mintEnvelope?: (req: MintRequest) => Promise<MintOutcome>;
  onError: (err: unknown) => void;
  /** Told the lag of each scheduled fire, ms after the start of its due tick (metrics). */
  onFireLag?: (ms: number) => void;
  /** Per-identity quotas (`contracts_per_machine` at creation). */
  quotas: QuotasService;
  /** Condition work of fires no caller asked for (schedules, events), per contract owner; absent: `CONTRACT_OWNERS` on `clock`. */
  ownerConditionAllowance?: ConditionAllowance;
}

/** A contract as the API shows it. */
export interface ContractView {
  id: string;
  slug: string;
  name: string;
  template_id: string | null;
  definition: Definition;
  current_state: string;
  status: ContractRecord['status'];
  current_version_no: number;
  next_fire: number | null;
  fire_count: number;
  integrity_hash: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** The shared machinery of the contracts area: storage, engine, event routing, scheduler and locks. */
export interface ContractsCore {
  deps: ContractsDeps;
  contracts: ContractRepository;
  hub: ContractHub;
  engine: ContractEngine;
  router: EventRouter;
  scheduler: ContractScheduler;
  /** Stops relaying contract rows between processes; nothing reads the store for it after it resolves. */
  stopRelay(): Promise<void>;
  /** Runs `fn` holding the contract's lock: fires and control operations of one contract never interleave. */
  locked<T>(id: string, fn: () => Promise<T>): Promise<T>;
  /** The contract with this id on this machine, or NOT_FOUND. */
  find(slug: string, id: string): Promise<ContractRecord>;
  machine(slug: string): Promise<MachineRecord>;
  view(record: ContractRecord): Promise<ContractView>;
  /** Next scheduled fire tick, or null when the contract is not active or nothing is scheduled. */
  nextFire(record: ContractRecord, runtime: Runtime): number | null;
  /** Re-indexes event triggers and re-arms the schedule after a change. */
  refresh(record: ContractRecord): Promise<void>;
  /** Validates a definition, including that machines named by event triggers are readable by the caller. */
  validate(definition: unknown, caller: Caller): Promise<Definition>;
  /** Appends a `contract.*` row to the machine's chain. */
  auditRow(slug: string, type: string, actor: string | null, payload: Record<string, unknown>): Promise<void>;
}

/** How often a process sharing its store re-reads every contract, in case another process died after changing one. */
const RESYNC_MS = 60_000;
/** Contracts whose runtime a re-read fetches at once. */
const RESYNC_PARALLEL = 50;

export function createContractsCore(deps: ContractsDeps): ContractsCore {
  const { machineRecords, contractRecords, locks, pubsub, clock } = deps;
  // Several processes may share a PostgreSQL store: a contract's runtime cached here may be behind theirs.
  const shared = deps.backend !== 'lowdb';
  // Other processes' contract rows reach this process's streams through the relay (see `contract-rows-relay.ts`).
  const rowsRelay = shared ? createContractRowsRelay({ ...deps, hub: createContractHub() }) : undefined;
  const hub = rowsRelay?.hub ?? createContractHub();
  let router: EventRouter | undefined;
  const ownerConditionAllowance = deps.ownerConditionAllowance ?? createConditionAllowance(CONTRACT_OWNERS, deps.clock.now);
  const engine = createContractEngine({ ...deps, ownerConditionAllowance, hub, deliver: (event) => router?.deliver(event) });
  const lockKey = (id: string) => `contract:${id}`;
  /** Inside the store's lock for the contract, with its runtime read afresh when another process may have moved it. */
  const underLock =
    <T>(id: string, fn: () => Promise<T>) =>
    async () => {
      if (shared) contractRecords.forget(id);
      return fn();
    };
  const locked = <T>(id: string, fn: () => Promise<T>) => locks.run(lockKey(id), underLock(id, fn));

  const nextFire = (record: ContractRecord, runtime: Runtime) => (record.status === 'active' ? (nextScheduled(record, runtime)?.due ?? null) : null);

  /**
   * Fires what is due under the contract's store-wide claim. Exactly once per (contract, due tick): the
   * claim serializes every process, the runtime is read afresh under it, and the fire's transition row
   * advances the watermark for that due tick, so whoever claims next finds it fired. A process that dies
   * before the row is written frees the claim with its session and writes nothing: the fire stays due.
   * Claimed elsewhere: looked at again shortly, within the tick (the holder may die).
   */
  async function fireDue(id: string, nowTick: number): Promise<number | undefined | typeof CLAIMED_ELSEWHERE> {
    if (!shared) return locked(id, () => fireClaimed(id, nowTick));
    const claimed = await locks.tryRun(
      lockKey(id),
      underLock(id, async () => {
        const next = await fireClaimed(id, nowTick);
        // Told under the claim: the message goes out with the fire's COMMIT, and never if it rolls back.
        schedule.fired(id, next);
        return next;
      }),
    );
    return claimed.ran ? claimed.value : CLAIMED_ELSEWHERE;
  }

  async function fireClaimed(id: string, nowTick: number): Promise<number | undefined> {
    {
      // Read once: edits and control operations take the contract's lock too, so it cannot change under a fire.
      const record = await contractRecords.get(id);
      if (!record || record.status !== 'active') return undefined;
      for (let step = 0; step < 32; step++) {
        const next = nextScheduled(record, await contractRecords.runtime(record));
        if (!next || next.due > nowTick) return next?.due;
        const machine = await machineRecords.get(record.slug);
        if (!machine) return undefined;
        // A paused or archived machine takes no writes: the fire waits, then collapses with the missed ones.
        if (machine.status !== 'active') return nowTick + 1;
        const { fireDue: tick, skipped } = collapse(next.trigger, next.due, nowTick);
        try {
          await engine.fire({ record, index: next.index, input: {}, triggered_by: 'trigger', actor: null, due: { tick, skipped } });
        } catch (error) {
          // The transitions hold this due tick already (written by a holder whose claim this one overlapped):
          // nothing was written; read the runtime afresh and go on from there.
          if (!(error instanceof FireAlreadyStoredError)) throw error;
          contractRecords.forget(id);
        }
      }
      return nowTick + 1;
    }
  }

  async function offer(id: string, delivery: Delivery): Promise<void> {
    const record = await locked(id, async () => {
      const current = await contractRecords.get(id);
      if (!current || current.status !== 'active') return undefined;
      // A paused or archived machine takes no writes, so its contracts let events pass by.
      if ((await machineRecords.get(current.slug))?.status !== 'active') return undefined;
      const runtime = await contractRecords.runtime(current);
      const defaults = current.definition.defaults ?? {};
      let filtered: { index: number; input: Record<string, unknown> } | undefined;
      for (const [index, transition] of current.definition.transitions.entries()) {
        const trigger = transition.trigger;
        if (transition.from !== runtime.state || !isEventTrigger(trigger)) continue;
        if ((trigger.machine ?? current.slug) !== delivery.source || !triggerEvents(trigger).includes(delivery.name)) continue;
        let input = delivery.payload;
        if (trigger.kind === 'on_aggregate') {
          const agg = await evaluateAggregate(deps.contractEvents, current.slug, trigger, delivery.tick);
          if (!agg.holds) continue;
          input = { ...delivery.payload, aggregate: agg.value, aggregate_events: agg.events };
        }
        if (transition.condition !== undefined) {
          const outcome = evaluateCondition(transition.condition, { ...defaults, ...input }, secretsOf(current.definition));
          if (!outcome.ok || !outcome.value) {
            filtered ??= { index, input };
            continue;
          }
        }
        await engine.fire({ record: current, index, input, triggered_by: 'event', actor: null, depth: delivery.depth });
        return current;
      }
      // No candidate passed its condition: the first refusal is recorded, once per event.
      if (filtered) await engine.fire({ record: current, ...filtered, triggered_by: 'event', actor: null, depth: delivery.depth });
      return undefined;
    });
    if (record) await refresh(record);
  }

  router = createEventRouter({ ...deps, bus: deps.bus, chain: deps.chain, clock, offer, reach: createListenerAccess(deps.machines), onError: deps.onError });

  /**
   * Contracts another process changed, as announced on the schedule channel (see `contract-schedule-relay.ts`),
   * or all of them every `RESYNC_MS` and at once after the messaging connection came back (a message sent
   * while this process reconnected is lost to it), with
   * their next due tick. A pass thus reads only what changed, never every contract.
   */
  let lastResync = Number.NEGATIVE_INFINITY;
  async function poll(): Promise<Array<[string, number | undefined]>> {
    const full = clock.now() - lastResync >= RESYNC_MS;
    if (full) lastResync = clock.now();
    const ids = schedule.takeChanged();
    const records = full ? await contractRecords.list() : (await Promise.all(ids.map((id) => contractRecords.get(id)))).filter((r) => r !== undefined);
    const out: Array<[string, number | undefined]> = [];
    if (!full) for (const id of ids) if (!records.some((r) => r.id === id)) out.push([id, undefined]);
    // Runtimes read a slice at a time in parallel: a full re-read of 1,000 contracts delays the pass
    // after it by a few pooled round trips, not a thousand in a row.
    for (let i = 0; i < records.length; i += RESYNC_PARALLEL) {
      await Promise.all(
        records.slice(i, i + RESYNC_PARALLEL).map(async (record) => {
          contractRecords.forget(record.id);
          router!.index(record);
          if (record.status === 'frozen' || record.status === 'killed') out.push([record.id, undefined]);
          else out.push([record.id, nextFire(record, await contractRecords.runtime(record)) ?? undefined]);
        }),
      );
    }
    return out;
  }

  const scheduler = new ContractScheduler({
    clock,
    fireDue,
    onError: deps.onError,
    ...(shared ? { poll } : {}),
    ...(deps.onFireLag ? { onFire: deps.onFireLag } : {}),
    async loadAll() {
      if (shared) return poll();
      const all = await contractRecords.list((c) => c.status !== 'frozen' && c.status !== 'killed');
      const out: Array<[string, number | undefined]> = [];
      for (const record of all) {
        router!.index(record);
        out.push([record.id, nextFire(record, await contractRecords.runtime(record)) ?? undefined]);
      }
      return out;
    },
  });

  const schedule = createScheduleRelay({
    pubsub,
    enabled: shared,
    onFired: (id, due) => scheduler.advance(id, due),
    // What other processes changed while this one could not hear them: the full re-read, now.
    onResume: () => {
      lastResync = Number.NEGATIVE_INFINITY;
      scheduler.pollNow().catch(deps.onError);
    },
  });

  async function refresh(record: ContractRecord) {
    const current = (await contractRecords.get(record.id)) ?? record;
    router!.index(current);
    scheduler.set(current.id, nextFire(current, await contractRecords.runtime(current)) ?? undefined);
    schedule.changed(current.id);
  }

  async function machine(slug: string) {
    const found = await machineRecords.get(slug);
    if (!found) throw errors.notFound(`No machine "${slug}"`, { slug });
    return found;
  }

  return {
    deps,
    contracts: contractRecords,
    hub,
    engine,
    router,
    scheduler,
    stopRelay: async () => rowsRelay?.stop(),
    locked,
    nextFire,
    refresh,
    machine,
    async find(slug, id) {
      const record = await contractRecords.get(id);
      if (!record || record.slug !== slug) {
        throw errors.notFound(`No contract "${id}" on machine "${slug}"; list them with GET /api/chain/${slug}/contracts`, { code: 'contract_not_found', id });
      }
      return record;
    },
    async view(record) {
      const runtime = await contractRecords.runtime(record);
      const { id, slug, name, template_id, definition, status, current_version_no, integrity_hash, created_by, created_at, updated_at } = record;
      return {
        id,
        slug,
        name,
        template_id,
        definition,
        status,
        current_version_no,
        integrity_hash,
        created_by,
        created_at,
        updated_at,
        current_state: runtime.state,
        next_fire: nextFire(record, runtime),
        fire_count: runtime.fire_count,
      };
    },
    async validate(definition, caller) {
      const { operators } = deps;
      const valid = validateDefinition(definition, {
        operatorExists: (id) => operators.exists(id),
        operatorInputs: (id) => operators.get(id)?.inputs.map((i) => i.name),
      });
      for (const [i, transition] of valid.transitions.entries()) {
        const source = transition.trigger?.machine;
        if (source === undefined) continue;
        // The contract listens as the caller's identity, so that is what must read the machine: a share
        // token the request carried is not kept, and does not count.
        const role = await deps.machines.roleOf(source, callerOf(principalOf(caller)));
        if (role === undefined) {
          const path = `transitions[${i}].trigger.machine`;
          const message = `no machine "${source}" that you can read as yourself (a share token does not carry over to a listening contract)`;
          throw errors.validation(`Invalid contract definition: ${path}: ${message}`, {
            code: 'invalid_definition',
            path,
            issues: [{ path, message }],
          });
        }
      }
      return valid;
    },
    async auditRow(slug, type, actor, payload) {
      await deps.chain.append(await machine(slug), { type, actor_uid: actor, payload_digest: digestOf(payload), payload });
    },
  };
}
