import { errors } from '../../errors.js';
import { digestOf } from '../../lib/hash.js';
import { hasRole } from '../identity/roles.js';
export function toKeyView(record) {
    const machineKey = record.kind === 'machine';
    return {
        id: record.key_id,
        kind: machineKey ? 'machine' : 'developer',
        name: record.name ?? (machineKey ? 'machine key' : record.key_id),
        scope: machineKey ? 'owner' : (record.scope ?? 'read'),
        rate_limit_tier: record.rate_limit_tier ?? null,
        expires_at: record.expires_at ?? null,
        key_prefix: record.key_prefix ?? 'core_',
        created_at: record.created_at,
        created_by: record.created_by ?? (machineKey ? record.uid : null),
        last_used_at: record.last_used_at ?? null,
    };
}
export function createApiKeysService(deps) {
    const { clock, chain, machines, identity } = deps;
    return {
        async list(slug, caller) {
            await machines.readable(slug, caller);
            return (await identity.machineKeys(slug)).map(toKeyView);
        },
        async create(slug, caller, input) {
            const { machine } = await machines.readable(slug, caller);
            if (input.expires_at !== undefined && Date.parse(input.expires_at) <= clock.now()) {
                throw errors.validation('expires_at must be in the future', {
                    issues: [{ path: 'expires_at', message: 'must be in the future', code: 'custom' }],
                });
            }
            const { key, record } = await identity.issueDeveloperKey({
                machine: slug,
                name: input.name,
                scope: input.scope,
                rate_limit_tier: input.rate_limit_tier ?? null,
                expires_at: input.expires_at === undefined ? null : new Date(Date.parse(input.expires_at)).toISOString(),
                created_by: caller.uid,
            });
            const payload = { key_id: record.key_id, name: input.name, scope: input.scope, rate_limit_tier: record.rate_limit_tier ?? null, expires_at: record.expires_at ?? null };
            await chain.append(machine, { type: 'api_key.created', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
            return { key: toKeyView(record), api_key: key };
        },
        async revoke(slug, caller, keyId) {
            const { machine, role } = await machines.readable(slug, caller);
            const record = await identity.machineKey(slug, keyId);
            if (!record)
                throw errors.notFound(`No API key "${keyId}" on "${slug}"`, { id: keyId });
            // The spin-up key acts as the owner, so only the owner may take it away.
            if (record.kind === 'machine' && !hasRole(role, 'owner'))
                throw errors.forbidden('Only the owner can revoke the machine key');
            const revoked = await identity.revokeKey(slug, keyId);
            if (revoked) {
                const payload = { key_id: keyId, name: record.name ?? null, kind: record.kind };
                await chain.append(machine, { type: 'api_key.revoked', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
            }
            return revoked;
        },
    };
}
//# sourceMappingURL=api-keys.service.js.map