import { hashKey, looksLikeKey, newKeyId, newRawKey, newUid } from './keys.js';
export const KEYS = 'keys';
export const USERS = 'users';
/** uids of developer keys start with this; user uids never do. */
export const DEVELOPER_UID_PREFIX = 'key:';
export function developerUid(keyId) {
    return `${DEVELOPER_UID_PREFIX}${keyId}`;
}
export function isDeveloperUid(uid) {
    return uid !== null && uid.startsWith(DEVELOPER_UID_PREFIX);
}
/** How long a key's `last_used_at` may lag: writing it on every request would rewrite the key file each time. */
const LAST_USED_RESOLUTION_MS = 60_000;
export function createIdentityService(deps) {
    const { store, clock } = deps;
    const iso = () => new Date(clock.now()).toISOString();
    const issue = async (fields, uidOf) => {
        const key = newRawKey();
        const keyId = newKeyId();
        const record = {
            ...fields,
            uid: uidOf ? uidOf(keyId) : fields.uid,
            key_id: keyId,
            hash: hashKey(key),
            key_prefix: key.slice(0, 9),
            created_at: iso(),
        };
        await store.docs.insert(KEYS, record.hash, record);
        return { key, record };
    };
    const live = (record) => !record.revoked_at && !(record.expires_at && Date.parse(record.expires_at) <= clock.now());
    async function machineKey(slug, keyId) {
        return (await store.docs.list(KEYS, (r) => r.machine === slug && r.key_id === keyId))[0];
    }
    function touch(record) {
        const now = clock.now();
        if (record.last_used_at && now - Date.parse(record.last_used_at) < LAST_USED_RESOLUTION_MS)
            return;
        // Best effort and off the request path: a failed or late write only leaves last_used_at older.
        store.docs
            .update(KEYS, record.hash, (current) => (current ? { ...current, last_used_at: new Date(now).toISOString() } : undefined))
            .catch(() => undefined);
    }
    return {
        async mintDemoKey(label) {
            const uid = newUid();
            const user = { uid, created_at: iso(), created_tick: clock.tick() };
            await store.docs.insert(USERS, uid, user);
            const { key, record } = await issue({ uid, kind: 'user', ...(label ? { name: label } : {}) });
            return { key, uid, key_id: record.key_id, created_at: record.created_at };
        },
        issueMachineKey: (input) => issue(input),
        issueDeveloperKey: (input) => issue({
            kind: 'developer',
            machine: input.machine,
            scope: input.scope,
            name: input.name,
            rate_limit_tier: input.rate_limit_tier ?? null,
            expires_at: input.expires_at ?? null,
            created_by: input.created_by,
            revoked_at: null,
            last_used_at: null,
        }, developerUid),
        async machineKeys(slug) {
            return store.docs.list(KEYS, (r) => r.machine === slug && r.kind !== 'user' && live(r));
        },
        machineKey,
        async revokeKey(slug, keyId) {
            const found = await machineKey(slug, keyId);
            if (!found)
                return false;
            let revoked = false;
            await store.docs.update(KEYS, found.hash, (current) => {
                if (!current || current.revoked_at)
                    return undefined;
                revoked = true;
                return { ...current, revoked_at: iso() };
            });
            return revoked;
        },
        async isUser(uid) {
            return (await store.docs.get(USERS, uid)) !== undefined;
        },
        async resolveKey(raw) {
            if (!looksLikeKey(raw))
                return undefined;
            const record = await store.docs.get(KEYS, hashKey(raw));
            if (!record || !live(record))
                return undefined;
            touch(record);
            const caller = {
                uid: record.uid,
                credential: record.kind === 'user' ? 'user-key' : 'machine-key',
                keyId: record.key_id,
            };
            if (record.machine)
                caller.machine = record.machine;
            if (record.scope)
                caller.scope = record.scope;
            return caller;
        },
    };
}
//# sourceMappingURL=identity.service.js.map