import { TICK_MS } from '../../lib/clock.js';
import { checkpointMessage } from './checkpoint.js';
import { MACHINES } from './machine.js';
/** Heads are signed every 1,287 ticks (about 16.7 minutes), the seal cadence of the public service. */
export const CHECKPOINT_EVERY_TICKS = 1287;
/** Latest checkpoint of each machine, by slug (small: one record per machine). */
export const CHECKPOINTS = 'checkpoints';
export function checkpointStream(slug) {
    return `checkpoints/${slug}`;
}
/**
 * Periodic checkpoints: a linear hash chain cannot show that its tail was cut off, so the node signs
 * each machine's head every `everyTicks` ticks, in a log kept apart from the chain it vouches for.
 */
export function createCheckpointsService(deps) {
    const { store, clock, chain, nodeKeys } = deps;
    const everyTicks = deps.everyTicks ?? CHECKPOINT_EVERY_TICKS;
    let timer;
    let running;
    const sign = (unsigned) => ({ ...unsigned, signature: nodeKeys.sign(checkpointMessage(unsigned)) });
    async function checkpoint(slug) {
        const head = await chain.head(slug);
        if (!head)
            return undefined;
        const last = await store.docs.get(CHECKPOINTS, slug);
        if (last && last.seq === head.seq && last.head_hash === head.state_hash)
            return last;
        const signed = sign({ slug, seq: head.seq, tick: head.tick, head_hash: head.state_hash, signed_tick: clock.tick() });
        await store.logs.append(checkpointStream(slug), () => ({
            tick: signed.signed_tick,
            type: 'checkpoint',
            slug,
            head_seq: signed.seq,
            head_tick: signed.tick,
            head_hash: signed.head_hash,
            signed_tick: signed.signed_tick,
            key_id: nodeKeys.keyId,
            signature: signed.signature,
        }));
        await store.docs.put(CHECKPOINTS, slug, signed);
        return signed;
    }
    async function checkpointAll() {
        let signed = 0;
        for (const machine of await store.docs.list(MACHINES)) {
            const before = await store.docs.get(CHECKPOINTS, machine.slug);
            const after = await checkpoint(machine.slug);
            if (after && after.signed_tick !== before?.signed_tick)
                signed += 1;
        }
        return signed;
    }
    const arm = () => {
        timer = setTimeout(() => {
            running = checkpointAll().catch((err) => {
                deps.onError?.(err);
                return 0;
            });
            void running.finally(() => {
                running = undefined;
                if (timer !== undefined)
                    arm();
            });
        }, everyTicks * TICK_MS);
        timer.unref();
    };
    return {
        everyTicks,
        sign,
        checkpoint,
        checkpointAll,
        latest: (slug) => store.docs.get(CHECKPOINTS, slug),
        latestAll: () => store.docs.list(CHECKPOINTS),
        async history(slug, limit) {
            const rows = await store.logs.read(checkpointStream(slug), { reverse: true, limit });
            return rows.reverse().map((r) => ({
                slug: r.slug,
                seq: r.head_seq,
                tick: r.head_tick,
                head_hash: r.head_hash,
                signed_tick: r.signed_tick,
                signature: r.signature,
            }));
        },
        start() {
            if (timer === undefined)
                arm();
        },
        async stop() {
            if (timer !== undefined)
                clearTimeout(timer);
            timer = undefined;
            await running;
        },
    };
}
//# sourceMappingURL=checkpoints.service.js.map