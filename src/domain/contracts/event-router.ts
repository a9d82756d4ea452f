import type { Clock } from '../../lib/clock.js';
import type { EventBus } from '../events.js';
import type { RowInput } from '../../storage/port.js';
import type { ChainService } from '../chain/chain.service.js';
import { inboxType } from './aggregate.js';
import { type ContractRecord, type InboxRecord, type ListenerPrincipal } from './contract.types.js';
import type { EmittedEvent } from './contract-engine.js';
import { listenerOf, principalKey, WITHHELD, type EventOrigin, type Reach } from './listener-access.js';
import { isEventTrigger, triggerEvents } from './triggers.js';
import type { MachineRepository } from '../chain/machine-repository.js';
import type { ContractEventRepository } from './contract-event-repository.js';

/** Emitted events cascade through listening contracts at most this deep (a contract loop stops here). */
export const MAX_CASCADE = 8;

/** An event as handed to one listening contract. */
export interface Delivery {
  source: string;
  name: string;
  payload: Record<string, unknown>;
  tick: number;
  depth: number;
}

export interface EventRouter {
  /** Re-reads a contract's event triggers; call after create, edit and status changes. */
  index(record: ContractRecord): void;
  /** Delivers an event emitted by a contract's post-action. */
  deliver(event: EmittedEvent): void;
  /** Resolves once every event received so far has been delivered. */
  settled(): Promise<void>;
  stop(): void;
}

export interface RouterDeps {
  contractEvents: ContractEventRepository;
  machineRecords: MachineRepository;
  bus: EventBus;
  chain: ChainService;
  clock: Clock;
  /** Offers an event to one contract (which decides, under its lock, whether a transition fires). */
  offer(contractId: string, delivery: Delivery): Promise<void>;
  /** What a listener's principal may receive of an event from `source`, asked at each delivery. */
  reach(principal: ListenerPrincipal, source: string, origin: EventOrigin): Promise<Reach>;
  onError(err: unknown): void;
}

/**
 * Routes events to contracts with on_event, on_events and on_aggregate triggers: events posted to a
 * machine (`POST /api/chain/{slug}/event`, any row type a trigger names) and events emitted by
 * contracts, on the same machine or, for triggers naming another `machine`, across machines. Events of
 * one source machine are delivered in order. Aggregated events are first kept in the listening
 * machine's inbox log so windows survive restarts. Each listener receives what its principal may read
 * at the moment of delivery (see `listener-access.ts`): revoking a right stops flows already set up.
 */
export function createEventRouter(deps: RouterDeps): EventRouter {
  const { contractEvents, machineRecords, chain } = deps;
  /** source slug → event name → listening contract ids. */
  const listeners = new Map<string, Map<string, Set<string>>>();
  /** contract id → what it is indexed under, for re-indexing. */
  const entries = new Map<string, { slug: string; keys: Array<[string, string]>; aggregates: string[]; principal: ListenerPrincipal }>();
  /** listening slug → inbox row type → how many contracts aggregate it. */
  const aggregated = new Map<string, Map<string, number>>();
  const queues = new Map<string, Promise<void>>();
  const pending = new Set<Promise<void>>();

  function unindex(id: string) {
    const entry = entries.get(id);
    if (!entry) return;
    for (const [source, name] of entry.keys) listeners.get(source)?.get(name)?.delete(id);
    for (const type of entry.aggregates) {
      const counts = aggregated.get(entry.slug);
      const left = (counts?.get(type) ?? 1) - 1;
      if (left <= 0) counts?.delete(type);
      else counts?.set(type, left);
    }
    entries.delete(id);
  }

  function index(record: ContractRecord) {
    unindex(record.id);
    if (record.status === 'frozen' || record.status === 'killed') return;
    const keys: Array<[string, string]> = [];
    const aggregates: string[] = [];
    for (const transition of record.definition.transitions) {
      const trigger = transition.trigger;
      if (!isEventTrigger(trigger)) continue;
      const source = trigger.machine ?? record.slug;
      for (const name of triggerEvents(trigger)) {
        keys.push([source, name]);
        let byName = listeners.get(source);
        if (!byName) listeners.set(source, (byName = new Map()));
        let ids = byName.get(name);
        if (!ids) byName.set(name, (ids = new Set()));
        ids.add(record.id);
        if (trigger.kind === 'on_aggregate') aggregates.push(inboxType(source, name));
      }
    }
    for (const type of new Set(aggregates)) {
      let counts = aggregated.get(record.slug);
      if (!counts) aggregated.set(record.slug, (counts = new Map()));
      counts.set(type, (counts.get(type) ?? 0) + 1);
    }
    entries.set(record.id, { slug: record.slug, keys, aggregates: [...new Set(aggregates)], principal: listenerOf(record) });
  }

  /** An event's payload, read (decrypted, for a chain row) only when some listener may receive it. */
  interface Content {
    origin: EventOrigin;
    payload: () => Promise<Record<string, unknown>>;
  }

  async function route(source: string, name: string, content: Content, tick: number, depth: number, origin: string | null) {
    const targets = [...(listeners.get(source)?.get(name) ?? [])].filter((id) => id !== origin);
    if (targets.length === 0) return;
    // One check per principal and event, made now: a right revoked since the listener was set up counts.
    const checks = new Map<string, Promise<Reach>>();
    const reachOf = (id: string): Promise<Reach> => {
      const entry = entries.get(id);
      if (!entry) return Promise.resolve('none');
      const key = principalKey(entry.principal);
      let check = checks.get(key);
      if (!check) checks.set(key, (check = deps.reach(entry.principal, source, content.origin)));
      return check;
    };
    const reaches = new Map<string, Reach>();
    for (const id of targets) reaches.set(id, await reachOf(id));
    let full: Promise<Record<string, unknown>> | undefined;
    const payloadFor = (reach: Reach) => (reach === 'payload' ? (full ??= content.payload()) : Promise.resolve({ ...WITHHELD }));
    const type = inboxType(source, name);
    const slugs = new Set(targets.map((id) => entries.get(id)?.slug).filter((s): s is string => s !== undefined));
    for (const slug of slugs) {
      if (!aggregated.get(slug)?.get(type)) continue;
      // The inbox of a machine is shared by its aggregating contracts: it keeps the payload only when
      // every one of them may read it, and the event only when one of them may.
      const here = targets.filter((id) => entries.get(id)?.slug === slug && entries.get(id)?.aggregates.includes(type)).map((id) => reaches.get(id)!);
      if (!here.some((r) => r !== 'none')) continue;
      const payload = await payloadFor(here.every((r) => r === 'payload') ? 'payload' : 'event');
      await contractEvents.appendInbox(
        slug,
        (head) =>
          ({
            tick: Math.max(tick, head?.tick ?? 0),
            type,
            name,
            source_slug: source,
            payload,
          }) as RowInput<InboxRecord>,
      );
    }
    for (const id of targets) {
      const reach = reaches.get(id)!;
      if (reach === 'none') continue;
      const payload = await payloadFor(reach);
      await deps.offer(id, { source, name, payload, tick, depth }).catch(deps.onError);
    }
  }

  /** Runs `job` after earlier jobs of the same source machine. */
  function enqueue(source: string, job: () => Promise<void>) {
    const run = (queues.get(source) ?? Promise.resolve()).then(job).catch(deps.onError);
    queues.set(source, run);
    pending.add(run);
    void run.finally(() => {
      pending.delete(run);
      if (queues.get(source) === run) queues.delete(source);
    });
  }

  const off = deps.bus.on('audit.appended', ({ slug, row, remote }) => {
    // The process that appended the row routes it; routing a relayed copy too would fire contracts twice.
    if (remote) return;
    const type = row.type;
    if (type.startsWith('contract.') || !listeners.get(slug)?.get(type)?.size) return;
    enqueue(slug, async () => {
      const machine = await machineRecords.get(slug);
      if (!machine) return;
      const payload = async () => (await chain.payloadOf(machine, row)).payload ?? {};
      await route(slug, type, { origin: 'chain', payload }, row.tick, 0, null);
    });
  });

  return {
    index,
    deliver(event) {
      if (event.depth > MAX_CASCADE) return;
      const content: Content = { origin: 'contract', payload: () => Promise.resolve(event.payload) };
      enqueue(event.source, () => route(event.source, event.name, content, deps.clock.tick(), event.depth, event.origin));
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    stop: off,
  };
}
