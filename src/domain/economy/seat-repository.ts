import type { Store } from '../../storage/port.js';
import type { SeatRecord } from './contribute-policy.js';

const SEATS = 'contribute-seats';
/**
 * One record (id `all`): the bonded envelopes and value summed over every seat, kept by this
 * repository's writes so the census never sums the seats. `pending` is set before a seat changes and
 * cleared with the new sums after: a process that dies between the two leaves it set, and the next
 * census counts the seats once and stores the sums again.
 */
const TOTALS = 'contribute-seat-totals';
const TOTALS_ID = 'all';
/** Held (across every process sharing the store) from marking the totals to storing the new sums, and by a recount. */
const TOTALS_LOCK = 'contribute-seat-totals';
/** Seats read by the census's first page of active ones; each next page reads twice as many, up to `MAX_ACTIVE_PAGE`. */
const FIRST_ACTIVE_PAGE = 16;
const MAX_ACTIVE_PAGE = 256;

/** What the census needs of every seat, without reading them. */
export interface SeatTotals {
  seats: number;
  bonded_envelopes: number;
  bonded_value: number;
}

interface StoredTotals extends SeatTotals {
  pending: boolean;
}

/** Contribution seats (released seats are deleted; the audit log keeps them): the only module that names their collection. */
export interface SeatRepository {
  byId(seatId: string): Promise<SeatRecord | undefined>;
  /** The seats a uid holds, in bond order (at most `max_seats_per_uid`). */
  byUid(uid: string): Promise<SeatRecord[]>;
  /**
   * The seats whose last heartbeat is at or after `tick`, newest heartbeat first: read from the
   * heartbeat order a page at a time, stopping at the first older one, so the lapsed seats are never read.
   */
  heartbeatSince(tick: number): Promise<SeatRecord[]>;
  /**
   * How many seats there are and what they bond, from the maintained totals. Only the first census
   * over seats stored before the totals existed, or after a writer died mid-change, counts the seats
   * (once, holding the totals' lock so no write comes between).
   */
  totals(): Promise<SeatTotals>;
  /** Fails with `DuplicateKeyError` when the seat exists. */
  insert(seat: SeatRecord): Promise<void>;
  /** Read-modify-write; `fn` sees undefined for a released seat. Returns what is stored afterwards. */
  update(seatId: string, fn: (current: SeatRecord | undefined) => SeatRecord | undefined): Promise<SeatRecord | undefined>;
  /** Returns whether the seat existed. */
  delete(seatId: string): Promise<boolean>;
}

export function createSeatRepository(store: Store): SeatRepository {
  const sums = (seat: SeatRecord | undefined): SeatTotals =>
    seat === undefined
      ? { seats: 0, bonded_envelopes: 0, bonded_value: 0 }
      : { seats: 1, bonded_envelopes: seat.bonded_token_ids.length, bonded_value: seat.bonded_value };

  /**
   * Runs one seat write and moves the totals by what it changed. Every seat write holds the lock, so
   * the totals are read and written by one writer at a time in every process. When the write fails
   * (or the totals are missing or already marked) the mark stays and the next census recounts.
   */
  async function write<R>(change: () => Promise<{ result: R; before: SeatRecord | undefined; after: SeatRecord | undefined }>): Promise<R> {
    return store.locks.run(TOTALS_LOCK, async () => {
      const totals = await store.docs.get<StoredTotals>(TOTALS, TOTALS_ID);
      const kept = totals !== undefined && !totals.pending;
      if (kept) await store.docs.put<StoredTotals>(TOTALS, TOTALS_ID, { ...totals, pending: true });
      const { result, before, after } = await change();
      if (kept) {
        const [was, is] = [sums(before), sums(after)];
        await store.docs.put<StoredTotals>(TOTALS, TOTALS_ID, {
          seats: totals.seats + is.seats - was.seats,
          bonded_envelopes: totals.bonded_envelopes + is.bonded_envelopes - was.bonded_envelopes,
          bonded_value: totals.bonded_value + is.bonded_value - was.bonded_value,
          pending: false,
        });
      }
      return result;
    });
  }

  /** Counts every seat: the one whole-collection read, only when the totals are missing or marked. */
  async function recount(): Promise<SeatTotals> {
    return store.locks.run(TOTALS_LOCK, async () => {
      const held = await store.docs.get<StoredTotals>(TOTALS, TOTALS_ID);
      if (held !== undefined && !held.pending) return held;
      const fresh: SeatTotals = { seats: 0, bonded_envelopes: 0, bonded_value: 0 };
      for (const seat of await store.docs.list<SeatRecord>(SEATS)) {
        const one = sums(seat);
        fresh.seats += one.seats;
        fresh.bonded_envelopes += one.bonded_envelopes;
        fresh.bonded_value += one.bonded_value;
      }
      await store.docs.put<StoredTotals>(TOTALS, TOTALS_ID, { ...fresh, pending: false });
      return fresh;
    });
  }

  return {
    byId: (seatId) => store.docs.get<SeatRecord>(SEATS, seatId),
    byUid: async (uid) => (await store.docs.find<SeatRecord>(SEATS, { uid })).items,

    async heartbeatSince(tick) {
      const found: SeatRecord[] = [];
      let after: string | undefined;
      let size = FIRST_ACTIVE_PAGE;
      do {
        const page = await store.docs.find<SeatRecord>(
          SEATS,
          {},
          {
            limit: size,
            orderBy: { field: 'last_heartbeat_tick', desc: true },
            ...(after === undefined ? {} : { after }),
          },
        );
        size = Math.min(size * 2, MAX_ACTIVE_PAGE);
        for (const seat of page.items) {
          if (seat.last_heartbeat_tick < tick) return found;
          found.push(seat);
        }
        after = page.next;
      } while (after !== undefined);
      return found;
    },

    async totals() {
      const held = await store.docs.get<StoredTotals>(TOTALS, TOTALS_ID);
      if (held !== undefined && !held.pending) return { seats: held.seats, bonded_envelopes: held.bonded_envelopes, bonded_value: held.bonded_value };
      const fresh = await recount();
      return { seats: fresh.seats, bonded_envelopes: fresh.bonded_envelopes, bonded_value: fresh.bonded_value };
    },

    insert: (seat) =>
      write(async () => {
        await store.docs.insert(SEATS, seat.seat_id, seat);
        return { result: undefined, before: undefined, after: seat };
      }),

    update: (seatId, fn) =>
      write(async () => {
        // `fn` may run more than once (PostgreSQL retries a raced creation): the last run saw what was replaced.
        let before: SeatRecord | undefined;
        const after = await store.docs.update<SeatRecord>(SEATS, seatId, (current) => {
          before = current;
          return fn(current);
        });
        return { result: after, before, after };
      }),

    delete: (seatId) =>
      write(async () => {
        let before: SeatRecord | undefined;
        const deleted = await store.docs.deleteIf<SeatRecord>(SEATS, seatId, (current) => {
          before = current;
          return true;
        });
        return { result: deleted, before: deleted ? before : undefined, after: undefined };
      }),
  };
}
