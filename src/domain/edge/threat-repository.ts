import type { LogRow, RowInput, Store } from '../../storage/port.js';

export interface Device {
  device_id: string;
  name: string;
  os: string;
  installed_tick: number;
  transition_id: string;
}

/** A device as stored. */
export interface DeviceRecord extends Device {
  slug: string;
  registered_by: string | null;
  created_at: string;
}

/** One claim as the threat list shows it. */
export interface Threat {
  transition_id: string;
  tick: number;
  claim_type: string;
  device_id: string;
  fingerprint: string;
  s_forensic: number;
  fired: boolean;
}

/** A threat as kept; the observation itself stays in the encrypted chain payload. */
export interface ThreatRow extends Threat, LogRow {
  type: 'claim';
}

/** Fire count of one subscription: a follower machine's notifications of one publisher's tag. */
export interface SubscriptionCount {
  follower_slug: string;
  publisher_slug: string;
  tag: string;
  fire_count: number;
  last_fired_tick: number | null;
}

const DEVICES = 'av-devices';
/** Id `<follower>|<publisher>|<tag>`. */
const COUNTS = 'av-subscriptions';
const threatStream = (slug: string) => `av/${slug}/threats`;

/** The threat feed's devices, claims log per machine and subscription counters: the only module that names them. */
export interface ThreatRepository {
  device(deviceId: string): Promise<DeviceRecord | undefined>;
  /** A machine's devices, in registration order (bounded by the `devices_per_machine` quota). */
  devicesOf(slug: string): Promise<DeviceRecord[]>;
  insertDevice(device: DeviceRecord): Promise<void>;
  /** Appends the claim `build` makes from the log's head, under the log's lock; resolves once durable. */
  appendClaim(slug: string, build: (head: ThreatRow | undefined) => RowInput<ThreatRow>): Promise<ThreatRow>;
  /** A machine's claims from `fromTick` on, newest first. */
  claimsSince(slug: string, fromTick: number): Promise<ThreatRow[]>;
  /** Counts one more notification of `follower` by `publisher` on `tag`, at `tick`. */
  countNotification(follower: string, publisher: string, tag: string, tick: number): Promise<void>;
  subscriptionCount(follower: string, publisher: string, tag: string): Promise<SubscriptionCount | undefined>;
}

export function createThreatRepository(store: Store): ThreatRepository {
  return {
    device: (deviceId) => store.docs.get<DeviceRecord>(DEVICES, deviceId),
    devicesOf: async (slug) => (await store.docs.find<DeviceRecord>(DEVICES, { slug })).items,
    insertDevice: (device) => store.docs.insert(DEVICES, device.device_id, device),
    appendClaim: (slug, build) => store.logs.append<ThreatRow>(threatStream(slug), (head) => build(head)),
    claimsSince: (slug, fromTick) => store.logs.read<ThreatRow>(threatStream(slug), { fromTick, reverse: true }),
    async countNotification(follower, publisher, tag, tick) {
      await store.docs.update<SubscriptionCount>(COUNTS, `${follower}|${publisher}|${tag}`, (current) => ({
        follower_slug: follower,
        publisher_slug: publisher,
        tag,
        fire_count: (current?.fire_count ?? 0) + 1,
        last_fired_tick: tick,
      }));
    },
    subscriptionCount: (follower, publisher, tag) => store.docs.get<SubscriptionCount>(COUNTS, `${follower}|${publisher}|${tag}`),
  };
}
