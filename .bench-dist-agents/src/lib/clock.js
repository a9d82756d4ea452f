/** Length of one tick in milliseconds: the chain clock runs at 1.287 Hz. */
export const TICK_MS = 777;
export const PULSE_HZ = 1.287;
/** Runtime coupling constant of the pulse modulation R(t). */
export const ALPHA = 1e-3;
export function tickOf(unixMs) {
    return Math.floor(unixMs / TICK_MS);
}
export function phaseOf(unixMs) {
    return (((unixMs % TICK_MS) + TICK_MS) % TICK_MS) / TICK_MS;
}
/** Unix milliseconds at which tick `n` starts. */
export function tickStartMs(tick) {
    return tick * TICK_MS;
}
export function createClock(now = Date.now) {
    return {
        now,
        tick: () => tickOf(now()),
        phase: () => phaseOf(now()),
    };
}
export function createFakeClock(startMs = 1_777_000_000_000) {
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
//# sourceMappingURL=clock.js.map