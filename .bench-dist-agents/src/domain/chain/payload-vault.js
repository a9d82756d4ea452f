import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { canonicalJson } from '../../lib/canonical-json.js';
import { DuplicateKeyError } from '../../storage/port.js';
import { NODE_KEYS } from '../identity/node-keys.js';
import { payloadStream } from './machine.js';
const VAULT_KEY_ID = 'audit-payload';
export function createPayloadVault(deps) {
    const { store } = deps;
    let master;
    let loading;
    const machineKeys = new Map();
    async function load() {
        let stored = await store.docs.get(NODE_KEYS, VAULT_KEY_ID);
        if (!stored) {
            const fresh = { key_hex: randomBytes(32).toString('hex'), created_at: new Date(deps.now()).toISOString() };
            try {
                await store.docs.insert(NODE_KEYS, VAULT_KEY_ID, fresh);
                stored = fresh;
            }
            catch (err) {
                if (!(err instanceof DuplicateKeyError))
                    throw err;
                stored = (await store.docs.get(NODE_KEYS, VAULT_KEY_ID));
            }
        }
        master = Buffer.from(stored.key_hex, 'hex');
    }
    function keyOf(machine) {
        if (!master)
            throw new Error('payload vault used before ready()');
        const id = `${machine.slug}|${machine.genesis_tick}`;
        let key = machineKeys.get(id);
        if (!key) {
            key = Buffer.from(hkdfSync('sha256', master, 'core-audit-payload-v1', `machine|${id}`, 32));
            machineKeys.set(id, key);
        }
        return key;
    }
    const aad = (b) => Buffer.from(`${b.slug}|${b.row_seq}|${b.transition_id}`);
    return {
        ready() {
            if (master)
                return Promise.resolve();
            loading ??= load().catch((err) => {
                loading = undefined;
                throw err;
            });
            return loading;
        },
        seal(machine, tick, binding, payload) {
            const iv = randomBytes(12);
            const cipher = createCipheriv('aes-256-gcm', keyOf(machine), iv);
            cipher.setAAD(aad(binding));
            const ct = Buffer.concat([cipher.update(canonicalJson(payload), 'utf8'), cipher.final()]);
            return {
                tick,
                type: 'payload',
                row_seq: binding.row_seq,
                transition_id: binding.transition_id,
                alg: 'A256GCM',
                iv: iv.toString('base64url'),
                ct: ct.toString('base64url'),
                tag: cipher.getAuthTag().toString('base64url'),
            };
        },
        async find(slug, rowSeq, transitionId) {
            const stream = payloadStream(slug);
            // Payload rows are appended in chain order, so row_seq never decreases: binary search by it.
            let lo = 0;
            let hi = await store.logs.count(stream);
            while (lo < hi) {
                const mid = (lo + hi) >>> 1;
                const row = await store.logs.get(stream, mid);
                if (row !== undefined && row.row_seq < rowSeq)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            // A write that failed after its payload was queued can leave an orphan with the same row_seq.
            const candidates = await store.logs.read(stream, { fromSeq: lo, limit: 8 });
            return candidates.find((row) => row.row_seq === rowSeq && row.transition_id === transitionId);
        },
        open(machine, stored, binding) {
            const decipher = createDecipheriv('aes-256-gcm', keyOf(machine), Buffer.from(stored.iv, 'base64url'));
            decipher.setAAD(aad(binding));
            decipher.setAuthTag(Buffer.from(stored.tag, 'base64url'));
            const text = Buffer.concat([decipher.update(Buffer.from(stored.ct, 'base64url')), decipher.final()]).toString('utf8');
            return JSON.parse(text);
        },
    };
}
//# sourceMappingURL=payload-vault.js.map