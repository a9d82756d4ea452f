import { randomUUID } from 'node:crypto';
import { CoreError, errors } from '../../errors.js';
import { digestOf } from '../../lib/hash.js';
import { writeResult } from './chain.service.js';
import { chainStream, REJECTION_STREAM } from './machine.js';
/** Node-wide cap on rejection-log rows per minute: the endpoint is public and writes to disk. */
const REJECTIONS_PER_MINUTE = 600;
/** Rows read per page when looking rows up by transition id (newest first). */
const SCAN_PAGE = 5000;
export function createChainWritesService(deps) {
    const { store, clock, chain } = deps;
    let window = { start: 0, count: 0 };
    async function write(machine, caller, type, payload) {
        chain.assertWritable(machine);
        const row = await chain.append(machine, { type, actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
        return writeResult(row);
    }
    async function rowsByTransitionId(slug, ids) {
        const wanted = new Set(ids);
        const found = new Map();
        let before = await store.logs.count(chainStream(slug));
        while (before > 0 && found.size < wanted.size) {
            const page = await store.logs.read(chainStream(slug), { toSeq: before - 1, reverse: true, limit: SCAN_PAGE });
            for (const row of page)
                if (wanted.has(row.transition_id))
                    found.set(row.transition_id, row);
            before -= SCAN_PAGE;
        }
        const missing = ids.filter((id) => !found.has(id));
        if (missing.length > 0)
            throw errors.notFound(`No row with transition id ${missing[0]} on "${slug}"`, { transition_ids: missing });
        return ids.map((id) => found.get(id));
    }
    return {
        async appendState(machine, caller, stateHash) {
            chain.assertWritable(machine);
            const row = await chain.append(machine, { type: 'state', actor_uid: caller.uid, payload_digest: stateHash.toLowerCase() });
            return writeResult(row);
        },
        appendFile: (machine, caller, file) => write(machine, caller, 'file', { name: file.name, sha256: file.sha256.toLowerCase(), size: file.size, content_type: file.content_type ?? null }),
        appendConnection: (machine, caller, c) => write(machine, caller, 'connection', { direction: c.direction, peer_hash: c.peer_hash, protocol: c.protocol, state: c.state }),
        appendAppEvent: (machine, caller, app, type, payload) => write(machine, caller, `app.${app}.${type}`, { app, type, payload }),
        async logRejection(caller, input) {
            const now = clock.now();
            if (now - window.start >= 60_000)
                window = { start: now, count: 0 };
            if (window.count >= REJECTIONS_PER_MINUTE) {
                throw new CoreError('RATE_LIMITED', `The rejection log takes at most ${REJECTIONS_PER_MINUTE} rows a minute; retry shortly`);
            }
            window.count++;
            const id = randomUUID();
            const row = await store.logs.append(REJECTION_STREAM, () => ({
                tick: clock.tick(),
                type: 'rejection',
                id,
                slug: input.slug ?? null,
                reason: input.reason,
                code: input.code ?? null,
                payload_digest: input.payload_digest?.toLowerCase() ?? null,
                source: input.source ?? null,
                reporter_uid: caller.uid,
                created_at: new Date(now).toISOString(),
            }));
            return { id, tick: row.tick };
        },
        async decrypt(machine, caller, input) {
            const { seqs, transition_ids: ids } = input;
            if ((seqs === undefined) === (ids === undefined)) {
                throw errors.validation('Give either seqs or transition_ids', {
                    issues: [{ path: 'seqs', message: 'give exactly one of seqs and transition_ids', code: 'custom' }],
                });
            }
            let rows;
            if (seqs !== undefined) {
                rows = [];
                for (const seq of seqs) {
                    const row = await store.logs.get(chainStream(machine.slug), seq);
                    if (!row)
                        throw errors.notFound(`No row ${seq} on "${machine.slug}"`, { seq });
                    rows.push(row);
                }
            }
            else {
                rows = await rowsByTransitionId(machine.slug, ids);
            }
            const out = [];
            for (const row of rows)
                out.push({ row, ...(await chain.payloadOf(machine, row)) });
            const payload = { seqs: rows.map((r) => r.seq), ...(input.reason ? { reason: input.reason } : {}) };
            const access = await chain.append(machine, { type: 'audit.decrypted', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
            return { rows: out, access_seq: access.seq };
        },
    };
}
//# sourceMappingURL=chain-writes.service.js.map