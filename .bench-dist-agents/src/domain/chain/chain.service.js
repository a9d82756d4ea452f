import { randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { digestOf, sameDigest } from '../../lib/hash.js';
import { chainStream, payloadStream } from './machine.js';
import { genesisSeed, seal } from './hash-chain.js';
import { createPayloadVault } from './payload-vault.js';
export function createChainService(deps) {
    const { store, clock, bus } = deps;
    const vault = createPayloadVault({ store, now: clock.now });
    const service = {
        async recordEvent(machine, caller, event) {
            if (event.payload !== undefined && event.hash !== undefined) {
                throw errors.validation('Send either payload or hash, not both', {
                    issues: [{ path: 'hash', message: 'payload and hash are mutually exclusive', code: 'custom' }],
                });
            }
            service.assertWritable(machine);
            const payload = event.hash === undefined ? (event.payload ?? {}) : undefined;
            const row = await service.append(machine, {
                type: event.type,
                actor_uid: caller.uid,
                payload_digest: event.hash?.toLowerCase() ?? digestOf(payload),
                ...(payload !== undefined ? { payload } : {}),
            });
            return writeResult(row);
        },
        assertWritable(machine) {
            if (machine.status !== 'active') {
                throw errors.conflict(`Machine "${machine.slug}" is ${machine.status}; writes are refused until its status is set back to active`, { slug: machine.slug, status: machine.status });
            }
        },
        async append(machine, input) {
            const { payload } = input;
            if (payload !== undefined)
                await vault.ready();
            const now = clock.now();
            let payloadStored;
            const row = await store.logs.append(chainStream(machine.slug), (head, seq) => {
                const sealed = seal({
                    id: `${machine.slug}:${seq}`,
                    // The chain's ticks never decrease, even if the wall clock steps back.
                    tick: Math.max(clock.tick(), head?.tick ?? machine.genesis_tick),
                    type: input.type,
                    transition_id: input.transition_id ?? randomUUID(),
                    actor_uid: input.actor_uid,
                    payload_digest: input.payload_digest,
                    prev_hash: head?.state_hash ?? genesisSeed(machine.slug, machine.genesis_tick),
                    created_at: new Date(now).toISOString(),
                    seq,
                });
                if (payload !== undefined) {
                    const binding = { slug: machine.slug, row_seq: seq, transition_id: sealed.transition_id };
                    const stored = vault.seal(machine, sealed.tick, binding, payload);
                    // Queued here, under the chain's lock, so payload rows land in chain order (see PayloadVault.find).
                    payloadStored = store.logs.append(payloadStream(machine.slug), () => stored);
                    payloadStored.catch(() => undefined);
                }
                return sealed;
            });
            await payloadStored;
            bus.emit('audit.appended', { slug: machine.slug, isPublic: machine.is_public, row });
            return row;
        },
        async activity(machine, query) {
            const limit = query.limit ?? 50;
            const before = query.cursor === undefined ? undefined : decodeCursor('before', query.cursor);
            const rows = await store.logs.read(chainStream(machine.slug), {
                reverse: true,
                limit: limit + 1,
                ...(before !== undefined ? { toSeq: before - 1 } : {}),
                ...(query.type ? { types: [query.type] } : {}),
            });
            const page = rows.slice(0, limit);
            const more = rows.length > limit && page.length > 0;
            return { rows: page, next_cursor: more ? encodeCursor('before', page[page.length - 1].seq) : null };
        },
        async payloadOf(machine, row) {
            await vault.ready();
            const stored = await vault.find(machine.slug, row.seq, row.transition_id);
            if (!stored)
                return { payload: null, digest_matches: null };
            let payload;
            try {
                payload = vault.open(machine, stored, { slug: machine.slug, row_seq: row.seq, transition_id: row.transition_id });
            }
            catch {
                return { payload: null, digest_matches: false };
            }
            const matches = row.payload_digest !== null && sameDigest(digestOf(payload), row.payload_digest);
            return { payload: payload, digest_matches: matches };
        },
        head: (slug) => store.logs.head(chainStream(slug)),
        count: (slug) => store.logs.count(chainStream(slug)),
    };
    return service;
}
export function writeResult(row) {
    return { ok: true, tick: row.tick, transition_id: row.transition_id, seq: row.seq, state_hash: row.state_hash };
}
//# sourceMappingURL=chain.service.js.map