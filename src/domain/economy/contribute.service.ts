import { randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { LockStore } from '../../storage/port.js';
import { DEFAULT_POLICY, seatState, seatView, type ContributionPolicy, type SeatRecord } from './contribute-policy.js';
import type { EnvelopeLedger } from './envelope-ledger.js';
import { lockedError } from './envelope-ledger.js';
import type { NodeAudit } from './node-audit-repository.js';
import type { SeatRepository } from './seat-repository.js';

export interface ContributeDeps {
  seatRecords: SeatRepository;
  locks: LockStore;
  clock: Clock;
  ledger: EnvelopeLedger;
  audit: NodeAudit;
  policy?: ContributionPolicy;
}

export type ContributeService = ReturnType<typeof createContributeService>;

/**
 * Contribution seats. A bond locks envelopes where they are (their owner and rows never change; the
 * lock only makes them immovable: no stake, no second bond) until the seat is released. A seat stays
 * active while heartbeats arrive within the policy window and lapses otherwise; a lapsed seat keeps
 * its bond until its holder releases it. Every step is audited in the node log `node/contribute`.
 */
export function createContributeService(deps: ContributeDeps) {
  const { seatRecords, locks, clock, ledger, audit } = deps;
  const policy = deps.policy ?? DEFAULT_POLICY;

  const seatsOf = (uid: string) => seatRecords.byUid(uid);

  /** The caller's seat named by id, or the caller's only seat; NOT_FOUND when there is none. */
  async function seatFor(uid: string, seatId: string | undefined): Promise<SeatRecord> {
    if (seatId !== undefined) {
      const seat = await seatRecords.byId(seatId);
      if (!seat || seat.uid !== uid) throw errors.notFound(`You hold no seat "${seatId}"`, { seat_id: seatId });
      return seat;
    }
    const seats = await seatsOf(uid);
    if (seats.length === 0) throw errors.notFound('You hold no seat; open one with POST /api/contribute/bond');
    if (seats.length > 1) throw errors.validation('You hold several seats; name one with seat_id');
    return seats[0]!;
  }

  function assertActive(seat: SeatRecord, tick: number) {
    if (seatState(seat, tick, policy) === 'lapsed') {
      const at = seat.last_heartbeat_tick + policy.heartbeat_window_ticks;
      throw errors.conflict(`Seat ${seat.seat_id} lapsed after tick ${at} without a heartbeat; release it (POST /api/contribute/release), then bond again`, {
        seat_id: seat.seat_id,
        lapsed_after_tick: at,
      });
    }
  }

  function assertMode(mode: string) {
    if (!policy.modes.some((m) => m.mode === mode)) {
      throw errors.validation(`Unknown mode "${mode}"; the policy lists ${policy.modes.map((m) => m.mode).join(', ')}`);
    }
  }

  const log = (type: string, uid: string, seatId: string, detail: Record<string, unknown>) =>
    audit.append('contribute', { type, actor_uid: uid, subject: seatId, detail });

  const api = {
    policy: () => ({ ok: true as const, ...policy }),

    async census() {
      const tick = clock.tick();
      // Only the active seats are read (the heartbeat order stops at the window); the sums over every
      // seat come from the totals the seat repository keeps.
      const [active, totals] = await Promise.all([seatRecords.heartbeatSince(tick - policy.heartbeat_window_ticks), seatRecords.totals()]);
      const counts = new Map<string, number>();
      for (const seat of active) counts.set(seat.mode, (counts.get(seat.mode) ?? 0) + 1);
      // Modes in the policy's order (then any a changed policy no longer lists), not in seat order: the active seats come newest heartbeat first.
      const order = new Set([...policy.modes.map((m) => m.mode), ...counts.keys()]);
      const byMode: Record<string, number> = {};
      for (const mode of order) if (counts.has(mode)) byMode[mode] = counts.get(mode)!;
      return {
        ok: true as const,
        tick,
        seats_active: active.length,
        // The two reads are not one snapshot: a seat opened between them must not make this negative.
        seats_lapsed: Math.max(0, totals.seats - active.length),
        by_mode: byMode,
        bonded_envelopes: totals.bonded_envelopes,
        bonded_value: totals.bonded_value,
      };
    },

    async status(uid: string) {
      const seats = await seatsOf(uid);
      return { ok: true as const, seat: seats[0] ? seatView(seats[0], clock.tick(), policy) : null };
    },

    async bond(uid: string, input: { token_ids: string[]; mode?: string | undefined; seat_id?: string | undefined }) {
      const tick = clock.tick();
      const owned = await ledger.owned(input.token_ids, uid);
      for (const o of owned) if (o.lock) throw lockedError(o.row.token_id, o.lock);
      const value = owned.reduce((sum, o) => sum + o.row.value, 0);
      const existing = input.seat_id !== undefined ? await seatFor(uid, input.seat_id) : (await seatsOf(uid))[0];
      if (existing) {
        assertActive(existing, tick);
        if (input.mode !== undefined && input.mode !== existing.mode) {
          throw errors.validation('mode applies only when a bond opens a seat; change the mode with POST /api/contribute/mode');
        }
      } else {
        if ((await seatsOf(uid)).length >= policy.max_seats_per_uid)
          throw errors.conflict(`You already hold ${policy.max_seats_per_uid} seat(s), the policy's maximum`);
        if (input.mode !== undefined) assertMode(input.mode);
        if (value < policy.min_bond_value) {
          throw errors.unprocessable(`A new seat needs a bond worth at least ${policy.min_bond_value}; these envelopes are worth ${value}`, {
            bonded_value: value,
            min_bond_value: policy.min_bond_value,
          });
        }
      }
      const seatId = existing?.seat_id ?? `seat_${randomUUID()}`;
      await ledger.lockAll(
        owned.map((o) => o.row),
        { kind: 'bond', ref: seatId, tick },
        uid,
      );
      const ids = owned.map((o) => o.row.token_id);
      let seat: SeatRecord | undefined;
      try {
        if (existing) {
          seat = await seatRecords.update(
            seatId,
            (s) => s && { ...s, bonded_token_ids: [...s.bonded_token_ids, ...ids], bonded_value: s.bonded_value + value },
          );
          if (!seat) throw errors.notFound(`Seat ${seatId} was released meanwhile; bond again`);
        } else {
          seat = {
            seat_id: seatId,
            uid,
            mode: input.mode ?? policy.default_mode,
            bonded_token_ids: ids,
            bonded_value: value,
            created_tick: tick,
            last_heartbeat_tick: tick,
          };
          await seatRecords.insert(seat);
        }
      } catch (err) {
        await ledger.unlock(ids, 'bond', seatId);
        throw err;
      }
      await log(existing ? 'contribute.bond_added' : 'contribute.seat_opened', uid, seatId, { token_ids: ids, value, mode: seat.mode, tick });
      return { ok: true as const, seat: seatView(seat, tick, policy) };
    },

    async heartbeat(uid: string, seatId: string | undefined) {
      const tick = clock.tick();
      const seat = await seatFor(uid, seatId);
      assertActive(seat, tick);
      const updated = await seatRecords.update(seat.seat_id, (s) => s && { ...s, last_heartbeat_tick: Math.max(tick, s.last_heartbeat_tick) });
      if (!updated) throw errors.notFound(`You hold no seat "${seat.seat_id}"`);
      await log('contribute.heartbeat', uid, seat.seat_id, { tick });
      return { ok: true as const, seat: seatView(updated, tick, policy) };
    },

    async setMode(uid: string, mode: string, seatId: string | undefined) {
      assertMode(mode);
      const tick = clock.tick();
      const seat = await seatFor(uid, seatId);
      assertActive(seat, tick);
      const updated = await seatRecords.update(seat.seat_id, (s) => s && { ...s, mode });
      if (!updated) throw errors.notFound(`You hold no seat "${seat.seat_id}"`);
      if (seat.mode !== mode) await log('contribute.mode_set', uid, seat.seat_id, { from: seat.mode, to: mode, tick });
      return { ok: true as const, seat: seatView(updated, tick, policy) };
    },

    async release(uid: string, seatId: string | undefined) {
      const tick = clock.tick();
      const seat = await seatFor(uid, seatId);
      if (!(await seatRecords.delete(seat.seat_id))) throw errors.notFound(`You hold no seat "${seat.seat_id}"`);
      const freed = await ledger.unlock(seat.bonded_token_ids, 'bond', seat.seat_id);
      await log('contribute.released', uid, seat.seat_id, { released_token_ids: freed, state: seatState(seat, tick, policy), tick });
      return { ok: true as const, seat_id: seat.seat_id, released_token_ids: freed, tick };
    },
  };

  // Opening a seat checks the uid's seat count, then inserts a seat of a new id: the check and the
  // insert hold the uid's store lock, so two processes cannot both open the uid's last allowed seat,
  // and a release never misses envelopes bonded to the seat while it runs.
  const seatLock = (uid: string) => `contribute-seat:${uid}`;
  return {
    ...api,
    bond: (uid: string, input: Parameters<typeof api.bond>[1]) => locks.run(seatLock(uid), () => api.bond(uid, input)),
    release: (uid: string, seatId: string | undefined) => locks.run(seatLock(uid), () => api.release(uid, seatId)),
  };
}
