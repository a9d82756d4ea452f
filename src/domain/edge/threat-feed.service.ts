import { randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { digestOf, randomToken } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import type { RowInput } from '../../storage/port.js';
import type { ChainService } from '../chain/chain.service.js';
import type { MachinesService } from '../chain/machines.service.js';
import type { ContractsService } from '../contracts/contracts-area.service.js';
import { claimFingerprint, forensicScore, THETA, windowTicks } from './forensic.js';
import { createThreatMesh, listenedEvents } from './threat-mesh.js';
import { type Device, type DeviceRecord, type Threat, type ThreatRow, type ThreatRepository } from './threat-repository.js';
import type { QuotasService } from '../quotas/quotas.service.js';
import type { MachineRepository } from '../chain/machine-repository.js';

export type { Device, Threat } from './threat-repository.js';

export interface ClaimInput {
  slug: string;
  device_id: string;
  claim_type: string;
  claim_payload: Record<string, unknown>;
  captured_at_tick: number;
  scores?: Array<{ score_id: string; value: number }> | undefined;
}

export interface ClaimResult {
  audit_row_id: string;
  tick: number;
  s_forensic: number;
  fired: boolean;
  blockers: string[];
  contracts_fired: string[];
  notified: string[];
  fingerprint: string;
}

/** Row types of claims: contracts listen to them like to any row type. */
export const THREAT_DETECTED = 'av.threat.detected';
export const CLAIM_RECORDED = 'av.claim.recorded';
/** Devices clocks drift; a capture tick further ahead than this is refused. */
const MAX_FUTURE_TICKS = 10;
const MAX_LISTED = 1000;

export interface ThreatFeedService {
  registerDevice(slug: string, input: { name: string; os: string }, caller: Caller): Promise<{ device_id: string; transition_id: string }>;
  listDevices(slug: string, caller: Caller): Promise<Device[]>;
  /** Scores, audits and publishes a claim; see `ClaimResult`. */
  claim(input: ClaimInput, caller: Caller): Promise<ClaimResult>;
  /** Claims within a window such as "24h", newest first (at most 1000 listed, all counted). */
  threats(slug: string, window: string, caller: Caller): Promise<{ count: number; threats: Threat[] }>;
  meshFeed(slug: string, caller: Caller): ReturnType<ReturnType<typeof createThreatMesh>['subscriptions']>;
}

export function createThreatFeedService(deps: {
  machineRecords: MachineRepository;
  threats: ThreatRepository;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
  quotas: QuotasService;
  contracts: ContractsService;
}): ThreatFeedService {
  const { threats, clock, chain, machines } = deps;
  const mesh = createThreatMesh(deps);

  /** Contracts of the machine that took a transition because of this claim row (waits for the engine to deliver it). */
  async function firedBy(slug: string, type: string, claimId: string): Promise<string[]> {
    const area = deps.contracts;
    const listening = (await area.core.contracts.bySlug(slug, { status: 'active' })).filter((c) =>
      listenedEvents(c).some((e) => e.source === slug && e.event === type),
    );
    if (listening.length === 0) return [];
    await area.settled();
    const fired: string[] = [];
    for (const record of listening) {
      const recent = await area.core.contracts.recentTransitions(record, 10);
      if (recent.some((t) => t.success && t.triggered_by === 'event' && t.input.claim_id === claimId)) fired.push(record.id);
    }
    return fired;
  }

  return {
    async registerDevice(slug, input, caller) {
      const { machine } = await machines.readable(slug, caller);
      chain.assertWritable(machine);
      return deps.quotas.within('devices_per_machine', slug, async () => {
        const device_id = `dev_${randomToken(16)}`;
        const payload = { device_id, name: input.name, os: input.os };
        const row = await chain.append(machine, { type: 'av.device.registered', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
        const record: DeviceRecord = {
          ...payload,
          slug,
          installed_tick: row.tick,
          transition_id: row.transition_id,
          registered_by: caller.uid,
          created_at: row.created_at,
        };
        await threats.insertDevice(record);
        return { device_id, transition_id: row.transition_id };
      });
    },

    async listDevices(slug, caller) {
      await machines.readable(slug, caller);
      const records = await threats.devicesOf(slug);
      return records.map(({ device_id, name, os, installed_tick, transition_id }) => ({ device_id, name, os, installed_tick, transition_id }));
    },

    async claim(input, caller) {
      const { machine } = await machines.readable(input.slug, caller);
      const device = await threats.device(input.device_id);
      if (!device || device.slug !== input.slug) {
        throw errors.notFound(`No device "${input.device_id}" on machine "${input.slug}"; register it with POST /api/av/devices`);
      }
      if (input.captured_at_tick > clock.tick() + MAX_FUTURE_TICKS) {
        throw errors.unprocessable(
          `captured_at_tick ${input.captured_at_tick} is in the future (now is tick ${clock.tick()}); send the tick at which the device observed it`,
        );
      }
      chain.assertWritable(machine);
      const s_forensic = forensicScore(input.scores ?? []);
      const fired = s_forensic >= THETA;
      const fingerprint = claimFingerprint(input.claim_type, input.claim_payload);
      const type = fired ? THREAT_DETECTED : CLAIM_RECORDED;
      const claimId = randomUUID();
      const summary = { device_id: input.device_id, claim_type: input.claim_type, fingerprint, s_forensic };
      const payload = {
        claim_id: claimId,
        ...summary,
        claim_payload: input.claim_payload,
        captured_at_tick: input.captured_at_tick,
        scores: input.scores ?? [],
      };
      const row = await chain.append(machine, { type, actor_uid: caller.uid, payload_digest: digestOf(payload), payload, transition_id: claimId });
      await threats.appendClaim(
        input.slug,
        (head) =>
          ({
            tick: Math.max(row.tick, head?.tick ?? 0),
            type: 'claim',
            transition_id: claimId,
            claim_type: input.claim_type,
            device_id: input.device_id,
            fingerprint,
            s_forensic,
            fired,
          }) as RowInput<ThreatRow>,
      );
      const [contracts_fired, notified] = await Promise.all([
        firedBy(input.slug, type, claimId),
        fired ? mesh.notify(machine, row, summary, caller) : Promise.resolve([]),
      ]);
      return {
        audit_row_id: row.id,
        tick: row.tick,
        s_forensic,
        fired,
        blockers: fired ? [] : ['composite_below_theta'],
        contracts_fired,
        notified,
        fingerprint,
      };
    },

    async threats(slug, window, caller) {
      await machines.readable(slug, caller);
      const rows = await threats.claimsSince(slug, clock.tick() - windowTicks(window));
      return {
        count: rows.length,
        threats: rows.slice(0, MAX_LISTED).map(({ transition_id, tick, claim_type, device_id, fingerprint, s_forensic, fired }) => ({
          transition_id,
          tick,
          claim_type,
          device_id,
          fingerprint,
          s_forensic,
          fired,
        })),
      };
    },

    async meshFeed(slug, caller) {
      await machines.readable(slug, caller);
      return mesh.subscriptions(slug, caller);
    },
  };
}
