/** The public contribution policy: what a seat may do, what it must bond, and how long it lives without a heartbeat. */
export interface ContributionPolicy {
  modes: Array<{ mode: string; description: string }>;
  default_mode: string;
  min_bond_value: number;
  heartbeat_window_ticks: number;
  max_seats_per_uid: number;
}

/** About one hour: 3,600 s / 0.777 s per tick. */
const ONE_HOUR_TICKS = 4633;

export const DEFAULT_POLICY: ContributionPolicy = Object.freeze({
  modes: [
    { mode: 'verifier', description: "Re-checks other nodes' signed claims and receipts and reports disagreements" },
    { mode: 'archiver', description: 'Keeps verified copies of public machine chains' },
    { mode: 'relay', description: 'Relays public audit streams to subscribers' },
  ],
  default_mode: 'verifier',
  min_bond_value: 10,
  heartbeat_window_ticks: ONE_HOUR_TICKS,
  max_seats_per_uid: 1,
}) as ContributionPolicy;

/** A seat as stored; its state is computed from ticks when read. Released seats are deleted (the audit log keeps them). */
export interface SeatRecord {
  seat_id: string;
  uid: string;
  mode: string;
  bonded_token_ids: string[];
  bonded_value: number;
  created_tick: number;
  last_heartbeat_tick: number;
}

export type SeatState = 'active' | 'lapsed' | 'released';

/** A seat lapses once more than the window has passed since its last heartbeat; no sweep has to run for that. */
export function seatState(seat: SeatRecord, tick: number, policy: ContributionPolicy): Exclude<SeatState, 'released'> {
  return tick > seat.last_heartbeat_tick + policy.heartbeat_window_ticks ? 'lapsed' : 'active';
}

export function seatView(seat: SeatRecord, tick: number, policy: ContributionPolicy) {
  return {
    seat_id: seat.seat_id,
    uid: seat.uid,
    mode: seat.mode,
    state: seatState(seat, tick, policy) as SeatState,
    bonded_token_ids: seat.bonded_token_ids,
    bonded_value: seat.bonded_value,
    created_tick: seat.created_tick,
    last_heartbeat_tick: seat.last_heartbeat_tick,
    lapses_at_tick: seat.last_heartbeat_tick + policy.heartbeat_window_ticks,
  };
}
