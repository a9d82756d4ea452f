import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, seatState, seatView, type SeatRecord } from '../../../src/domain/economy/contribute-policy.js';

const seat: SeatRecord = { seat_id: 's', uid: 'u', mode: 'relay', bonded_token_ids: ['a.0'], bonded_value: 10, created_tick: 100, last_heartbeat_tick: 200 };

describe('seat lapse', () => {
  it('stays active through the last tick of the heartbeat window and lapses on the next', () => {
    const last = 200 + DEFAULT_POLICY.heartbeat_window_ticks;
    expect(seatState(seat, last, DEFAULT_POLICY)).toBe('active');
    expect(seatState(seat, last + 1, DEFAULT_POLICY)).toBe('lapsed');
    expect(seatView(seat, last + 1, DEFAULT_POLICY)).toMatchObject({ state: 'lapsed', lapses_at_tick: last });
  });
});
