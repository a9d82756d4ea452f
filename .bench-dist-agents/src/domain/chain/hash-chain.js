import { digestOf, sha256Hex } from '../../lib/hash.js';
/** The `prev_hash` of a machine's first row, derived from its slug and genesis tick. */
export function genesisSeed(slug, genesisTick) {
    return sha256Hex(`core-genesis|${slug}|${genesisTick}`);
}
/** `state_hash = sha256(canonical JSON of the row without state_hash)`. */
export function stateHashOf(row) {
    return digestOf(row);
}
export function seal(row) {
    return { ...row, state_hash: stateHashOf(row) };
}
/**
 * Verifies consecutive rows: each row's hash is recomputed and its `prev_hash` must equal the previous
 * row's `state_hash` (or `expectedPrev` for the first row of the window).
 */
export function verifyChain(rows, expectedPrev) {
    let prev = expectedPrev;
    let count = 0;
    for (const row of rows) {
        const { state_hash, ...rest } = row;
        let reason = null;
        if (prev !== undefined && row.prev_hash !== prev)
            reason = 'prev_hash does not match the previous row';
        else if (stateHashOf(rest) !== state_hash)
            reason = 'state_hash does not match the row content';
        if (reason)
            return { valid: false, count, broken_at: row.tick, broken_seq: row.seq, reason };
        prev = state_hash;
        count += 1;
    }
    return { valid: true, count, broken_at: null, broken_seq: null, reason: null };
}
//# sourceMappingURL=hash-chain.js.map