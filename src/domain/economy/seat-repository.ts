import type { Store } from '../../storage/port.js';
import type { SeatRecord } from './contribute-policy.js';

const SEATS = 'contribute-seats';

/** Contribution seats (released seats are deleted; the audit log keeps them): the only module that names their collection. */
export interface SeatRepository {
  byId(seatId: string): Promise<SeatRecord | undefined>;
  /** The seats a uid holds, in bond order (at most `max_seats_per_uid`). */
  byUid(uid: string): Promise<SeatRecord[]>;
  /**
   * Every seat, for the census, which sums them all: a whole-collection read, bounded by the envelopes
   * bonded (each seat holds at least `min_bond_value` of them).
   */
  all(): Promise<SeatRecord[]>;
  /** Fails with `DuplicateKeyError` when the seat exists. */
  insert(seat: SeatRecord): Promise<void>;
  /** Read-modify-write; `fn` sees undefined for a released seat. Returns what is stored afterwards. */
  update(seatId: string, fn: (current: SeatRecord | undefined) => SeatRecord | undefined): Promise<SeatRecord | undefined>;
  /** Returns whether the seat existed. */
  delete(seatId: string): Promise<boolean>;
}

export function createSeatRepository(store: Store): SeatRepository {
  return {
    byId: (seatId) => store.docs.get<SeatRecord>(SEATS, seatId),
    byUid: async (uid) => (await store.docs.find<SeatRecord>(SEATS, { uid })).items,
    all: () => store.docs.list<SeatRecord>(SEATS),
    insert: (seat) => store.docs.insert(SEATS, seat.seat_id, seat),
    update: (seatId, fn) => store.docs.update<SeatRecord>(SEATS, seatId, fn),
    delete: (seatId) => store.docs.delete(SEATS, seatId),
  };
}
