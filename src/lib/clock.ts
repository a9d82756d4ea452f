/** Length of one tick in milliseconds: the chain clock runs at 1.287 Hz. */
export const TICK_MS = 777;
export const PULSE_HZ = 1.287;
/** Runtime coupling constant of the pulse modulation R(t). */
export const ALPHA = 1e-3;

/** The one source of time. Tests inject a fake `now`. */
export interface Clock {
  now(): number;
  tick(): number;
  phase(): number;
}

export function tickOf(unixMs: number): number {
  return Math.floor(unixMs / TICK_MS);
}

export function phaseOf(unixMs: number): number {
  return (((unixMs % TICK_MS) + TICK_MS) % TICK_MS) / TICK_MS;
}

/** Unix milliseconds at which tick `n` starts. */
export function tickStartMs(tick: number): number {
  return tick * TICK_MS;
}

export function createClock(now: () => number = Date.now): Clock {
  return {
    now,
    tick: () => tickOf(now()),
    phase: () => phaseOf(now()),
  };
}

/** A clock whose time moves only when told; for tests. */
export interface FakeClock extends Clock {
  set(unixMs: number): void;
  advance(ms: number): void;
}

export function createFakeClock(startMs = 1_777_000_000_000): FakeClock {
  let t = startMs;
  const clock = createClock(() => t);
  return {
    ...clock,
    set: (ms) => {
      t = ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}
