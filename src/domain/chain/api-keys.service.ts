import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { digestOf } from '../../lib/hash.js';
import type { Caller, Role } from '../identity/caller.js';
import { hasRole, roleOfScope } from '../identity/roles.js';
import type { IdentityService, KeyRecord } from '../identity/identity.service.js';
import type { ChainService } from './chain.service.js';
import type { MachinesService } from './machines.service.js';
import type { QuotasService } from '../quotas/quotas.service.js';

/** A machine key as listings show it: never the raw value nor its hash. */
export interface ApiKeyView {
  id: string;
  /** `machine`: the spin-up key, which acts as the owner; `developer`: minted with a scope. */
  kind: 'machine' | 'developer';
  name: string;
  /** The spec's scope of a developer key; null for the machine key, which has none. */
  scope: 'read' | 'write' | 'admin' | null;
  /** The role the key acts with on this machine: owner for the machine key, its scope's role otherwise. */
  role: Role;
  rate_limit_tier: string | null;
  expires_at: string | null;
  key_prefix: string;
  created_at: string;
  created_by: string | null;
  last_used_at: string | null;
}

export interface CreateKeyInput {
  name: string;
  scope: 'read' | 'write' | 'admin';
  rate_limit_tier?: string | undefined;
  expires_at?: string | undefined;
}

/**
 * A machine's API keys: the spin-up machine key (acts as the owner) and developer keys (each its own
 * identity `key:<id>`, with the role of its scope on this machine only). Raw values are returned once at
 * creation; only SHA-256 is stored. Creating and revoking append `api_key.*` rows.
 */
export interface ApiKeysService {
  list(slug: string, caller: Caller): Promise<ApiKeyView[]>;
  create(slug: string, caller: Caller, input: CreateKeyInput): Promise<{ key: ApiKeyView; api_key: string }>;
  /** false when the key was already revoked. */
  revoke(slug: string, caller: Caller, keyId: string): Promise<boolean>;
}

export function toKeyView(record: KeyRecord): ApiKeyView {
  const machineKey = record.kind === 'machine';
  return {
    id: record.key_id,
    kind: machineKey ? 'machine' : 'developer',
    name: record.name ?? (machineKey ? 'machine key' : record.key_id),
    scope: machineKey ? null : (record.scope ?? 'read'),
    role: machineKey ? 'owner' : roleOfScope(record.scope ?? 'read'),
    rate_limit_tier: record.rate_limit_tier ?? null,
    expires_at: record.expires_at ?? null,
    key_prefix: record.key_prefix ?? 'core_',
    created_at: record.created_at,
    created_by: record.created_by ?? (machineKey ? record.uid : null),
    last_used_at: record.last_used_at ?? null,
  };
}

export function createApiKeysService(deps: {
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
  identity: IdentityService;
  quotas: QuotasService;
}): ApiKeysService {
  const { clock, chain, machines, identity, quotas } = deps;

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
      const { key, record } = await quotas.within('api_keys_per_machine', slug, () =>
        identity.issueDeveloperKey({
          machine: slug,
          name: input.name,
          scope: input.scope,
          rate_limit_tier: input.rate_limit_tier ?? null,
          expires_at: input.expires_at === undefined ? null : new Date(Date.parse(input.expires_at)).toISOString(),
          created_by: caller.uid,
        }),
      );
      const payload = {
        key_id: record.key_id,
        name: input.name,
        scope: input.scope,
        rate_limit_tier: record.rate_limit_tier ?? null,
        expires_at: record.expires_at ?? null,
      };
      await chain.append(machine, { type: 'api_key.created', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
      return { key: toKeyView(record), api_key: key };
    },

    async revoke(slug, caller, keyId) {
      const { machine, role } = await machines.readable(slug, caller);
      const record = await identity.machineKey(slug, keyId);
      if (!record) throw errors.notFound(`No API key "${keyId}" on "${slug}"`, { id: keyId });
      // The spin-up key acts as the owner, so only the owner may take it away.
      if (record.kind === 'machine' && !hasRole(role, 'owner')) throw errors.forbidden('Only the owner can revoke the machine key');
      const revoked = await identity.revokeKey(slug, keyId);
      if (revoked) {
        const payload = { key_id: keyId, name: record.name ?? null, kind: record.kind };
        await chain.append(machine, { type: 'api_key.revoked', actor_uid: caller.uid, payload_digest: digestOf(payload), payload });
      }
      return revoked;
    },
  };
}
