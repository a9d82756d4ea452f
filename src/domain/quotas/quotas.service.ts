import { CoreError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { LockStore } from '../../storage/port.js';
import type { QuotaName, QuotaSettings } from './quota-settings.js';
import { createRollingWindows } from './rolling-window.js';
import type { KeyRepository } from '../identity/key-repository.js';
import type { ThreatRepository } from '../edge/threat-repository.js';
import type { RollingWindowRepository } from './rolling-window-repository.js';
import type { MachineRepository } from '../chain/machine-repository.js';
import type { ContractRepository } from '../contracts/contract-repository.js';

/** Quotas on what exists: checked by counting the stored records when one more is created. */
export type CountedQuota = Exclude<QuotaName, 'demo_keys_per_address'>;

export interface QuotasService {
  readonly settings: Readonly<QuotaSettings>;
  /**
   * Runs `create` (which makes one more of what `name` counts for `subject`: an owner uid, or a
   * machine slug) only while fewer than the limit exist; QUOTA_EXCEEDED otherwise. The count and the
   * creation run under one lock per quota and subject, held across every process sharing the store,
   * so concurrent creations never pass the limit together. Without a limit, `create` just runs.
   */
  within<T>(name: CountedQuota, subject: string, create: () => Promise<T>): Promise<T>;
  /** Takes one demo key for a client address (rolling hour); QUOTA_EXCEEDED with the wait when used up. */
  takeDemoKey(clientIp: string | undefined): Promise<void>;
}

/** The rolling window of `demo_keys_per_address`. */
export const DEMO_KEY_WINDOW_MS = 60 * 60 * 1000;

/** The repositories the quotas count in. */
interface CountedIn {
  machineRecords: MachineRepository;
  contractRecords: ContractRepository;
  threats: ThreatRepository;
  keys: KeyRepository;
}

interface Counted {
  count(repos: CountedIn, subject: string, nowMs: number): Promise<number>;
  /** "50 machines per identity" given the limit. */
  what(limit: number, subject: string): string;
  /** How to make room, besides asking for a higher limit. */
  room: string;
}

const COUNTED: Record<CountedQuota, Counted> = {
  machines: {
    count: (repos, uid) => repos.machineRecords.countOwnedBy(uid),
    what: (limit) => `${limit} machines per identity`,
    room: 'machines are not deleted, so reuse one you have',
  },
  contracts_per_machine: {
    count: async (repos, slug) => (await repos.contractRecords.bySlug(slug)).filter((c) => c.status !== 'killed').length,
    what: (limit, slug) => `${limit} live contracts on machine "${slug}"`,
    room: 'kill a contract you no longer need (POST /api/core/agent/kill/{id}) to make room',
  },
  devices_per_machine: {
    count: async (repos, slug) => (await repos.threats.devicesOf(slug)).length,
    what: (limit, slug) => `${limit} threat-feed devices on machine "${slug}"`,
    room: 'register further devices on another machine',
  },
  api_keys_per_machine: {
    count: async (repos, slug, nowMs) =>
      (await repos.keys.byMachine(slug, 'developer')).filter((k) => !k.revoked_at && !(k.expires_at && Date.parse(k.expires_at) <= nowMs)).length,
    what: (limit, slug) => `${limit} live API keys on machine "${slug}"`,
    room: 'revoke a key you no longer use (DELETE /api/chain/{slug}/api-keys/{id}) to make room',
  },
};

const RAISE = 'the node operator can raise it with CORE_QUOTAS';

/** The node's per-identity quotas (`CORE_QUOTAS`), one mechanism for every service that creates things. */
export function createQuotasService(
  deps: CountedIn & { demoKeyWindows: RollingWindowRepository; locks: LockStore; clock: Clock; settings: QuotaSettings },
): QuotasService {
  const { locks, clock, settings } = deps;
  const demoKeys = createRollingWindows({ windows: deps.demoKeyWindows, windowMs: DEMO_KEY_WINDOW_MS, now: clock.now });

  return {
    settings,

    async within(name, subject, create) {
      const limit = settings[name];
      if (limit === null) return create();
      const counted = COUNTED[name];
      return locks.run(`quota:${name}:${subject}`, async () => {
        const used = await counted.count(deps, subject, clock.now());
        if (used >= limit) {
          throw new CoreError('QUOTA_EXCEEDED', `Quota reached: at most ${counted.what(limit, subject)}; ${counted.room}, or ${RAISE} (${name})`, {
            quota: name,
            limit,
            used,
          });
        }
        return create();
      });
    },

    async takeDemoKey(clientIp) {
      const limit = settings.demo_keys_per_address;
      if (limit === null) return;
      const taken = await demoKeys.take(`demo-key|${clientIp ?? 'local'}`, limit);
      if (!taken.taken) {
        const at = new Date(clock.now() + taken.retry_after_ms).toISOString();
        throw new CoreError(
          'QUOTA_EXCEEDED',
          `Quota reached: at most ${limit} demo keys per client address per rolling hour; the next one can be minted at ${at} (reuse a key you have; ${RAISE}: demo_keys_per_address)`,
          { quota: 'demo_keys_per_address', limit, retry_after_s: Math.ceil(taken.retry_after_ms / 1000), resets_at: at },
        );
      }
    },
  };
}
