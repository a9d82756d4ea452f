import { CHECKPOINT_MESSAGE_TEMPLATE, SEAL_FORMAT, sealSigningInput, } from './checkpoint.js';
import { verifyChain } from './hash-chain.js';
import { chainStream, MACHINES } from './machine.js';
/** Rows read per step of a walk: memory stays flat whatever the chain's length. */
export const WALK_BATCH = 1000;
export function createIntegrityService(deps) {
    const { store, clock, chain, machines, checkpoints, nodeKeys } = deps;
    async function validate(machine, window) {
        const stream = chainStream(machine.slug);
        const head = await chain.head(machine.slug);
        const from = window.from ?? machine.genesis_tick;
        // A row's tick can be ahead of the wall clock (ticks never decrease on a chain), so the default end is the later of the two.
        const to = window.to ?? Math.max(clock.tick(), head?.tick ?? 0);
        const base = { ok: true, genesis_tick: machine.genesis_tick, from, to };
        // Bounds by seq, then a walk over every seq between them: a row whose tick was altered is still walked.
        const [first] = await store.logs.read(stream, { fromTick: from, limit: 1 });
        const [last] = await store.logs.read(stream, { toTick: to, reverse: true, limit: 1 });
        const empty = { valid: true, count: 0, broken_at: null, broken_seq: null, reason: null };
        if (!first || !last || first.seq > last.seq) {
            return { ...base, ...empty, message: 'empty range', checkpoint: await checkpointCheck(machine, to, head) };
        }
        let expectedPrev = first.seq === 0 ? machine.genesis_hash : (await store.logs.get(stream, first.seq - 1))?.state_hash;
        let count = 0;
        for (let seq = first.seq; seq <= last.seq; seq += WALK_BATCH) {
            const rows = await store.logs.read(stream, { fromSeq: seq, toSeq: Math.min(last.seq, seq + WALK_BATCH - 1) });
            const check = verifyChain(rows, expectedPrev);
            count += check.count;
            if (!check.valid) {
                const { broken_at, broken_seq, reason } = check;
                return { ...base, valid: false, count, broken_at, broken_seq, reason, checkpoint: await checkpointCheck(machine, to, head) };
            }
            expectedPrev = rows[rows.length - 1]?.state_hash ?? expectedPrev;
        }
        const checkpoint = await checkpointCheck(machine, to, head);
        if (checkpoint && !checkpoint.matches) {
            const missing = head === undefined || head.seq < checkpoint.seq;
            return {
                ...base,
                valid: false,
                count,
                broken_at: checkpoint.tick,
                broken_seq: checkpoint.seq,
                reason: missing
                    ? `the chain ends before seq ${checkpoint.seq}, which the node signed at tick ${checkpoint.signed_tick}: rows were removed`
                    : `seq ${checkpoint.seq} differs from the hash the node signed at tick ${checkpoint.signed_tick}: the history was rewritten`,
                checkpoint,
            };
        }
        return { ...base, valid: true, count, broken_at: null, broken_seq: null, reason: null, checkpoint };
    }
    async function checkpointCheck(machine, to, head) {
        const latest = await checkpoints.latest(machine.slug);
        if (!latest || latest.tick > to)
            return null;
        const row = head && latest.seq <= head.seq ? await store.logs.get(chainStream(machine.slug), latest.seq) : undefined;
        const { seq, tick, head_hash, signed_tick } = latest;
        return { seq, tick, head_hash, signed_tick, matches: row?.state_hash === head_hash };
    }
    async function seal(query, caller) {
        let list;
        if (query.slug !== undefined) {
            const { machine } = await machines.readable(query.slug, caller);
            list = await checkpoints.history(machine.slug, query.limit);
            const head = await chain.head(machine.slug);
            const newest = list[list.length - 1];
            // The current head, signed now (not stored), so a fresh export can be checked against the seal.
            if (head && (!newest || newest.seq !== head.seq)) {
                list.push(checkpoints.sign({ slug: machine.slug, seq: head.seq, tick: head.tick, head_hash: head.state_hash, signed_tick: clock.tick() }));
                if (list.length > query.limit)
                    list.shift();
            }
        }
        else {
            const publicSlugs = new Set((await store.docs.list(MACHINES, (m) => m.is_public)).map((m) => m.slug));
            list = (await checkpoints.latestAll())
                .filter((c) => publicSlugs.has(c.slug))
                .sort((a, b) => b.signed_tick - a.signed_tick || a.slug.localeCompare(b.slug))
                .slice(0, query.limit);
        }
        const unsigned = {
            ok: true,
            format: SEAL_FORMAT,
            origin: `node:${nodeKeys.keyId}`,
            tick: clock.tick(),
            algorithm: 'Ed25519',
            key_id: nodeKeys.keyId,
            public_key: nodeKeys.publicJwk.x,
            checkpoint_every_ticks: checkpoints.everyTicks,
            checkpoint_message: CHECKPOINT_MESSAGE_TEMPLATE,
            checkpoints: list,
        };
        return { ...unsigned, signature: nodeKeys.sign(sealSigningInput(unsigned)) };
    }
    return { validate, seal };
}
//# sourceMappingURL=integrity.service.js.map