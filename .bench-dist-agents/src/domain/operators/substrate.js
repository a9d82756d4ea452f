import { ALPHA, PULSE_HZ, TICK_MS } from '../../lib/clock.js';
/**
 * KO42, the substrate operator, applied first in every compute. It computes the clock modulation
 * R(t) = 1 + alpha_k·sin(2π·pulse_hz·t) with t = (tick + phase) × 0.777 s (Unix time in seconds, taken
 * from the tick and phase so that anyone holding a receipt or a claim can recompute it exactly).
 * It multiplies nothing: R(t) is reported as KO42's own result, stamping the instant of the compute
 * into the answer, and the value of the chain is the last operator's output, unchanged.
 */
export function substrateAt(at) {
    const t = ((at.tick + at.phase) * TICK_MS) / 1000;
    return { t, value: 1 + ALPHA * Math.sin(2 * Math.PI * PULSE_HZ * t) };
}
export const SUBSTRATE_FORMULA = 'R(t) = 1 + α_k·sin(2π·f_pulse·t)';
//# sourceMappingURL=substrate.js.map