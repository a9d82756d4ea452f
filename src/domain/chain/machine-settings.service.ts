import { errors } from '../../errors.js';
import { TICK_MS, type Clock } from '../../lib/clock.js';
import { digestOf, randomToken, sha256Hex } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import type { ChainService } from './chain.service.js';
import type { MachinesService, MachineView } from './machines.service.js';
import { shareActive, type MachineRecord, type MachineStatus, type ReadTokenRecord } from './machine.js';
import { checkPassword, hashPassword } from './read-password.js';
import { createUnlockThrottle } from './unlock-throttle.js';
import type { RollingWindowRepository } from '../quotas/rolling-window-repository.js';
import type { MachineRepository } from './machine-repository.js';

export interface SettingsPatch {
  is_public?: boolean | undefined;
  display_name?: string | null | undefined;
  purpose?: string | null | undefined;
  password?: string | null | undefined;
}

export interface MachineSettingsService {
  /** Moves the machine to a status; a move to the current status changes nothing and writes no row. */
  setStatus(
    slug: string,
    caller: Caller,
    status: MachineStatus,
    reason?: string,
  ): Promise<{ status: MachineStatus; previous_status: MachineStatus; tick: number }>;
  /** Applies only the fields given; audited as `machine.settings_changed` (the password only as set/cleared). */
  updateSettings(slug: string, caller: Caller, patch: SettingsPatch): Promise<MachineView>;
  /**
   * Trades the read password for a read-only token that lives `ttlTicks` ticks and dies with the
   * password. Each guess is taken from the unlock throttle before the password is checked; callers
   * who already hold a role on the machine are not throttled (the password tells them nothing).
   */
  unlock(
    slug: string,
    caller: Caller,
    password: string,
    ttlTicks: number,
    clientIp?: string,
  ): Promise<{ share_token: string; expires_tick: number; expires_at: string }>;
  /** Issues a new share token (shown once, stored as SHA-256), replacing any previous one. */
  setShare(slug: string, caller: Caller, expiresAt?: string): Promise<{ share_token: string; expires_at: string | null }>;
  /** Revokes the share token and every unlock token at once; false when neither was active. */
  disableShare(slug: string, caller: Caller): Promise<boolean>;
}

export function createMachineSettingsService(deps: {
  machineRecords: MachineRepository;
  unlockGuessWindows: RollingWindowRepository;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
}): MachineSettingsService {
  const { machineRecords, clock, chain, machines } = deps;
  const throttle = createUnlockThrottle({ windows: deps.unlockGuessWindows, clock });
  const iso = (ms = clock.now()): string => new Date(ms).toISOString();

  /** Read-modify-write of a machine record; `fn` returns the next record or undefined for no change. */
  async function change(slug: string, fn: (m: MachineRecord) => MachineRecord | undefined): Promise<{ before: MachineRecord; after: MachineRecord }> {
    let before: MachineRecord | undefined;
    const after = await machineRecords.update(slug, (current) => {
      before = current;
      if (!current) return undefined;
      const next = fn(current);
      return next && { ...next, updated_at: iso() };
    });
    if (!before || !after) throw errors.notFound(`No machine "${slug}"`, { slug });
    return { before, after };
  }

  /** Deletes the live unlock tokens of `slug` (none when undefined) and every expired one; counts the live ones dropped. */
  async function dropReadTokens(slug: string | undefined): Promise<number> {
    const now = clock.now();
    const stale = await machineRecords.staleReadTokens(slug, now);
    let dropped = 0;
    for (const token of stale) {
      if ((await machineRecords.deleteReadToken(token.token_hash)) && token.expires_ms > now) dropped++;
    }
    return dropped;
  }

  return {
    async setStatus(slug, caller, status, reason) {
      const { before, after } = await change(slug, (m) => (m.status === status ? undefined : { ...m, status }));
      if (before.status === status) return { status, previous_status: status, tick: clock.tick() };
      const payload = { from: before.status, to: status, ...(reason ? { reason } : {}) };
      const row = await chain.append(after, { type: 'machine.status_changed', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
      return { status, previous_status: before.status, tick: row.tick };
    },

    async updateSettings(slug, caller, patch) {
      const password = patch.password === undefined ? undefined : patch.password === null ? null : await hashPassword(patch.password);
      const changes: Record<string, unknown> = {};
      const { after } = await change(slug, (m) => {
        const next = { ...m };
        if (patch.is_public !== undefined && patch.is_public !== m.is_public) changes.is_public = next.is_public = patch.is_public;
        if (patch.display_name !== undefined && patch.display_name !== m.display_name) changes.display_name = next.display_name = patch.display_name;
        if (patch.purpose !== undefined && patch.purpose !== m.purpose) changes.purpose = next.purpose = patch.purpose;
        if (password !== undefined && (password !== null || m.password_hash)) {
          changes.password = password === null ? 'cleared' : 'set';
          next.password_hash = password;
        }
        return Object.keys(changes).length > 0 ? next : undefined;
      });
      if (Object.keys(changes).length > 0) {
        if (changes.password !== undefined) await dropReadTokens(slug);
        const payload = { changes };
        await chain.append(after, { type: 'machine.settings_changed', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
      }
      return machines.view(after);
    },

    async unlock(slug, caller, password, ttlTicks, clientIp) {
      const machine = await machineRecords.get(slug);
      // A machine without a password and a missing machine answer alike: unlock never confirms a slug.
      if (!machine?.password_hash) throw errors.notFound(`No password-protected machine "${slug}"`, { slug });
      const role = await machines.roleOf(slug, caller);
      if (role === undefined || role === 'none') await throttle.take(slug, caller, clientIp);
      if (!(await checkPassword(password, machine.password_hash))) throw errors.forbidden(`Wrong password for "${slug}"`);
      const token = `unl_${randomToken(40)}`;
      const expiresMs = clock.now() + ttlTicks * TICK_MS;
      const hash = sha256Hex(token);
      await dropReadTokens(undefined);
      const record: ReadTokenRecord = {
        slug,
        expires_ms: expiresMs,
        password_hash: machine.password_hash,
        created_at: iso(),
        token_hash: hash,
      };
      await machineRecords.putReadToken(record);
      const payload = { ttl_ticks: ttlTicks, expires_at: iso(expiresMs) };
      await chain.append(machine, { type: 'machine.unlocked', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
      return { share_token: token, expires_tick: clock.tick() + ttlTicks, expires_at: iso(expiresMs) };
    },

    async setShare(slug, caller, expiresAt) {
      if (expiresAt !== undefined && Date.parse(expiresAt) <= clock.now()) {
        throw errors.validation('expires_at must be in the future', {
          issues: [{ path: 'expires_at', message: 'must be in the future', code: 'custom' }],
        });
      }
      const token = `shr_${randomToken(40)}`;
      const expires = expiresAt === undefined ? null : iso(Date.parse(expiresAt));
      const { after } = await change(slug, (m) => ({ ...m, share_token_hash: sha256Hex(token), share_token_expires_at: expires }));
      const payload = { expires_at: expires };
      await chain.append(after, { type: 'machine.share_set', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
      return { share_token: token, expires_at: expires };
    },

    async disableShare(slug, caller) {
      const { before, after } = await change(slug, (m) => ({ ...m, share_token_hash: null, share_token_expires_at: null }));
      const unlocks = await dropReadTokens(slug);
      const shareWasActive = shareActive(before, clock.now());
      const revoked = shareWasActive || unlocks > 0;
      const payload = { share_token_revoked: shareWasActive, unlock_tokens_revoked: unlocks };
      await chain.append(after, { type: 'machine.share_disabled', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
      return revoked;
    },
  };
}
