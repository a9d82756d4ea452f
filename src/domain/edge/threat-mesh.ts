import type { Caller } from '../identity/caller.js';
import type { ChainService } from '../chain/chain.service.js';
import type { ChainRow } from '../chain/hash-chain.js';
import { type MachineRecord } from '../chain/machine.js';
import type { MachinesService } from '../chain/machines.service.js';
import type { ContractRecord } from '../contracts/contract.types.js';
import type { ContractsService } from '../contracts/contracts-area.service.js';
import { isEventTrigger, triggerEvents } from '../contracts/triggers.js';
import { digestOf } from '../../lib/hash.js';
import type { ThreatRepository } from './threat-repository.js';
import type { MachineRepository } from '../chain/machine-repository.js';

/**
 * How a machine follows another's threats: it holds an active contract whose event trigger names the
 * other machine and a threat event, e.g. `{"kind": "on_event", "machine": "lab", "event":
 * "av.threat.detected"}`. Deploying such a contract needs read access to the followed machine (the
 * contracts area checks it), the engine delivers the events, and this module records the notification:
 * an `av.mesh.notified` row on the follower's chain and a per-subscription counter.
 */
export const THREAT_EVENT_PREFIX = 'av.';
export const NOTIFIED_TYPE = 'av.mesh.notified';

/** Every (source machine, event name) an active contract listens to. */
export function listenedEvents(record: ContractRecord): Array<{ source: string; event: string }> {
  const out: Array<{ source: string; event: string }> = [];
  for (const transition of record.definition.transitions) {
    const trigger = transition.trigger;
    if (!isEventTrigger(trigger)) continue;
    for (const event of triggerEvents(trigger)) out.push({ source: trigger.machine ?? record.slug, event });
  }
  return out;
}

export interface ThreatMesh {
  /** Records the notification of every machine following `publisher` on `tag`; returns the followers `caller` may see. */
  notify(publisher: MachineRecord, row: ChainRow, summary: Record<string, unknown>, caller: Caller): Promise<string[]>;
  /** The machines `slug` follows, with fire counts; only publishers `caller` may read are listed. */
  subscriptions(slug: string, caller: Caller): Promise<Array<{ publisher_slug: string; tag: string; fire_count: number; last_fired_tick: number | null }>>;
}

export function createThreatMesh(deps: {
  machineRecords: MachineRepository;
  threats: ThreatRepository;
  chain: ChainService;
  machines: MachinesService;
  contracts: ContractsService;
}): ThreatMesh {
  const { machineRecords, threats, chain, machines } = deps;

  const contracts = (): ContractsService['core']['contracts'] => deps.contracts.core.contracts;

  return {
    async notify(publisher, row, summary, caller) {
      // The contracts listening to the publisher come from the listener index, not from every active contract.
      const following = (await contracts().listeners(publisher.slug)).filter(
        (c) => c.status === 'active' && c.slug !== publisher.slug && listenedEvents(c).some((e) => e.source === publisher.slug && e.event === row.type),
      );
      const notified: string[] = [];
      for (const followerSlug of [...new Set(following.map((c) => c.slug))].sort()) {
        const follower = await machineRecords.get(followerSlug);
        if (!follower || follower.status !== 'active') continue;
        // A follower whose owner lost read access to the publisher is told nothing more.
        if ((await machines.roleOf(publisher.slug, { uid: follower.owner_uid, credential: 'user-key' })) === undefined) continue;
        const payload = { publisher_slug: publisher.slug, tag: row.type, claim_transition_id: row.transition_id, ...summary };
        await chain.append(follower, { type: NOTIFIED_TYPE, actor_uid: null, payload_digest: digestOf(payload), payload });
        await threats.countNotification(followerSlug, publisher.slug, row.type, row.tick);
        if ((await machines.roleOf(followerSlug, caller)) !== undefined) notified.push(followerSlug);
      }
      return notified;
    },

    async subscriptions(slug, caller) {
      const keys = new Map<string, { publisher_slug: string; tag: string }>();
      for (const record of await contracts().bySlug(slug, { status: 'active' })) {
        for (const { source, event } of listenedEvents(record)) {
          if (source !== slug && event.startsWith(THREAT_EVENT_PREFIX)) keys.set(`${source}|${event}`, { publisher_slug: source, tag: event });
        }
      }
      const out = [];
      for (const [, sub] of [...keys].sort(([a], [b]) => (a < b ? -1 : 1))) {
        if ((await machines.roleOf(sub.publisher_slug, caller)) === undefined) continue;
        const count = await threats.subscriptionCount(slug, sub.publisher_slug, sub.tag);
        out.push({ ...sub, fire_count: count?.fire_count ?? 0, last_fired_tick: count?.last_fired_tick ?? null });
      }
      return out;
    },
  };
}
