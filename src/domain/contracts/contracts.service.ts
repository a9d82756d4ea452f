import { errors } from '../../errors.js';
import { tickOf } from '../../lib/clock.js';
import { pageOf } from '../../lib/cursor.js';
import { digestOf, randomToken } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import type { ContractsCore, ContractView } from './contracts-core.js';
import type { ContractRecord, ContractStatus, Definition, VersionFields, VersionRecord } from './contract.types.js';
import { principalOf } from './listener-access.js';
import { applyParams, type TemplateCatalogue } from './template-catalogue.js';

export interface CreateInput {
  definition?: unknown;
  template_id?: string | undefined;
  params?: Record<string, unknown> | undefined;
  name?: string | undefined;
}

export interface VersionView {
  n: number;
  definition_hash: string;
  created_by: string;
  tick_number: number;
  created_at: string;
  note: string | null;
  rolled_back_from: number | null;
}

export interface ExportEnvelope {
  format: 'core.contract/1';
  exported_at: string;
  exported_tick: number;
  source: { slug: string; contract_id: string; version_no: number };
  name: string;
  template_id: string | null;
  definition: Definition;
  definition_hash: string;
}

/** Creating, reading, editing, versioning and moving contracts. */
export interface ContractsCrud {
  create(slug: string, caller: Caller, input: CreateInput): Promise<{ contract: ContractView; template_id: string | null }>;
  list(
    slug: string,
    query: { status?: ContractStatus | undefined; template_id?: string | undefined; limit: number; cursor?: string | undefined },
  ): Promise<{ contracts: ContractView[]; next_cursor: string | null }>;
  get(slug: string, id: string): Promise<{ contract: ContractView; transitions: unknown[] }>;
  update(slug: string, id: string, caller: Caller, definition: unknown, note?: string): Promise<{ contract: ContractView; version_no: number }>;
  rollback(slug: string, id: string, caller: Caller, toVersion: number): Promise<{ contract: ContractView; version_no: number }>;
  versions(slug: string, id: string): Promise<{ current_version_no: number; versions: VersionView[] }>;
  version(slug: string, id: string, n: number): Promise<VersionView & { definition: Definition }>;
  /** Matches only when the live definition, its stored hash and the current row of the version log all agree. */
  integrity(
    slug: string,
    id: string,
  ): Promise<{
    contract_id: string;
    current_version_no: number;
    stored_hash: string;
    live_hash: string;
    version_hash: string | null;
    match: boolean;
    tick_number: number;
  }>;
  exportContract(slug: string, id: string): Promise<ExportEnvelope>;
  importContract(slug: string, caller: Caller, envelope: ExportEnvelope, name?: string): Promise<ContractView>;
}

/**
 * Secrets are write-only: no read answers them, so an edit made from a read definition would drop them.
 * An edit without `secrets` keeps the current ones (send `"secrets": {}` to clear them); a rollback
 * restores the version's own.
 */
function keepSecrets(next: Definition, current: Definition, edit: boolean): Definition {
  return edit && next.secrets === undefined && current.secrets !== undefined ? { ...next, secrets: current.secrets } : next;
}

/** Definition members never carried by an export. */
const NOT_EXPORTED = ['secrets', 'watermarks'];

export function createContractsCrud(core: ContractsCore, templates: TemplateCatalogue): ContractsCrud {
  const { contracts } = core;
  const { clock, chain } = core.deps;
  const iso = () => new Date(clock.now()).toISOString();

  async function insert(
    slug: string,
    caller: Caller,
    args: { definition: unknown; name?: string | undefined; template_id: string | null; note: string; audit: string },
  ) {
    const machine = await core.machine(slug);
    chain.assertWritable(machine);
    const definition = await core.validate(args.definition, caller);
    const tick = clock.tick();
    const now = iso();
    const record: ContractRecord = {
      id: `ct_${randomToken(20)}`,
      slug,
      name: args.name ?? definition.name,
      template_id: args.template_id,
      definition,
      integrity_hash: digestOf(definition),
      status: 'active',
      current_version_no: 1,
      created_by: caller.uid!,
      listener: principalOf(caller),
      created_at: now,
      updated_at: now,
      created_tick: tick,
      anchor_tick: tick,
      skip_floor: {},
    };
    await core.deps.quotas.within('contracts_per_machine', slug, () => contracts.insert(record));
    await contracts.appendVersion(record, version(record, 1, caller, args.note, null));
    await core.auditRow(slug, args.audit, caller.uid, {
      contract_id: record.id,
      name: record.name,
      template_id: record.template_id,
      definition_hash: record.integrity_hash,
      version_no: 1,
    });
    await core.refresh(record);
    return core.view(record);
  }

  function version(record: ContractRecord, n: number, caller: Caller, note: string | null, rolledBackFrom: number | null): VersionFields {
    return {
      n,
      contract_id: record.id,
      definition: record.definition,
      definition_hash: record.integrity_hash,
      created_by: caller.uid!,
      tick_number: clock.tick(),
      created_at: iso(),
      note,
      rolled_back_from: rolledBackFrom,
    };
  }

  /** Replaces the live definition under the contract's lock: edit and rollback. */
  async function replace(slug: string, id: string, caller: Caller, raw: unknown, note: string | null, rolledBackFrom: number | null) {
    const updated = await core.locked(id, async () => {
      const record = await core.find(slug, id);
      if (record.status === 'killed' || record.status === 'frozen')
        throw errors.conflict(`Contract "${id}" is ${record.status}; its definition can no longer change`, { status: record.status });
      chain.assertWritable(await core.machine(slug));
      const definition = keepSecrets(await core.validate(raw, caller), record.definition, rolledBackFrom === null);
      const { state } = await contracts.runtime(record);
      if (!Object.hasOwn(definition.states, state)) {
        throw errors.validation(`Invalid contract definition: states: the contract is in state "${state}"; keep that state in the new definition`, {
          code: 'invalid_definition',
          path: 'states',
          issues: [{ path: 'states', message: `the current state "${state}" must remain` }],
        });
      }
      const next = record.current_version_no + 1;
      const saved = await contracts.update(id, (current) => ({
        ...current,
        definition,
        integrity_hash: digestOf(definition),
        current_version_no: next,
        // Whoever sets the definition chooses what it listens to: it listens with their right to read.
        listener: principalOf(caller),
        anchor_tick: clock.tick(),
        updated_at: iso(),
      }));
      await contracts.appendVersion(saved!, version(saved!, next, caller, note, rolledBackFrom));
      await core.auditRow(slug, rolledBackFrom === null ? 'contract.updated' : 'contract.rolled_back', caller.uid, {
        contract_id: id,
        version_no: next,
        definition_hash: saved!.integrity_hash,
        rolled_back_from: rolledBackFrom,
      });
      return saved!;
    });
    await core.refresh(updated);
    return { contract: await core.view(updated), version_no: updated.current_version_no };
  }

  const versionView = ({ n, definition_hash, created_by, tick_number, created_at, note, rolled_back_from }: VersionRecord): VersionView => ({
    n,
    definition_hash,
    created_by,
    tick_number,
    created_at,
    note,
    rolled_back_from,
  });

  return {
    async create(slug, caller, input) {
      if ((input.definition === undefined) === (input.template_id === undefined)) {
        throw errors.validation('Give exactly one of template_id and definition', {
          issues: [{ path: 'definition', message: 'give template_id or definition, not both or neither' }],
        });
      }
      if (input.template_id === undefined) {
        if (input.params !== undefined) throw errors.validation('params go with template_id; put values straight into the definition instead');
        const contract = await insert(slug, caller, {
          definition: input.definition,
          name: input.name,
          template_id: null,
          note: 'created',
          audit: 'contract.created',
        });
        return { contract, template_id: null };
      }
      const template = templates.get(input.template_id);
      if (!template)
        throw errors.notFound(`No template "${input.template_id}"; list them with GET /api/contracts/templates`, { template_id: input.template_id });
      const definition = applyParams(template, input.params ?? {});
      const contract = await insert(slug, caller, {
        definition,
        name: input.name,
        template_id: template.id,
        note: `deployed from template ${template.id}`,
        audit: 'contract.created',
      });
      return { contract, template_id: template.id };
    },

    async list(slug, query) {
      const all = await contracts.bySlug(slug, {
        ...(query.status !== undefined ? { status: query.status } : {}),
        ...(query.template_id !== undefined ? { template_id: query.template_id } : {}),
      });
      all.reverse();
      const { page, next_cursor } = pageOf(all, query.limit, query.cursor);
      return { contracts: await Promise.all(page.map((c) => core.view(c))), next_cursor };
    },

    async get(slug, id) {
      const record = await core.find(slug, id);
      return { contract: await core.view(record), transitions: await contracts.recentTransitions(record, 20) };
    },

    update: (slug, id, caller, definition, note) => replace(slug, id, caller, definition, note ?? null, null),

    async rollback(slug, id, caller, toVersion) {
      const record = await core.find(slug, id);
      const target = (await contracts.versions(record)).find((v) => v.n === toVersion);
      if (!target) throw errors.notFound(`Contract "${id}" has no version ${toVersion}; it has 1-${record.current_version_no}`, { to_version: toVersion });
      return replace(slug, id, caller, structuredClone(target.definition), `rollback to version ${toVersion}`, toVersion);
    },

    async versions(slug, id) {
      const record = await core.find(slug, id);
      const rows = await contracts.versions(record);
      return { current_version_no: record.current_version_no, versions: rows.map(versionView).reverse() };
    },

    async version(slug, id, n) {
      const record = await core.find(slug, id);
      const row = (await contracts.versions(record)).find((v) => v.n === n);
      if (!row) throw errors.notFound(`Contract "${id}" has no version ${n}; it has 1-${record.current_version_no}`, { n });
      return { ...versionView(row), definition: row.definition };
    },

    async integrity(slug, id) {
      const record = await core.find(slug, id);
      const live = digestOf(record.definition);
      // The version log is append-only and hash-checked apart from the record: a definition edited
      // together with its stored hash still differs from the hash logged for its version.
      const current = (await contracts.versions(record)).find((v) => v.n === record.current_version_no);
      const logged = current && digestOf(current.definition) === current.definition_hash ? current.definition_hash : null;
      return {
        contract_id: id,
        current_version_no: record.current_version_no,
        stored_hash: record.integrity_hash,
        live_hash: live,
        version_hash: logged,
        match: live === record.integrity_hash && live === logged,
        tick_number: clock.tick(),
      };
    },

    async exportContract(slug, id) {
      const record = await core.find(slug, id);
      const definition = Object.fromEntries(Object.entries(record.definition).filter(([k]) => !NOT_EXPORTED.includes(k))) as Definition;
      const now = clock.now();
      return {
        format: 'core.contract/1',
        exported_at: new Date(now).toISOString(),
        exported_tick: tickOf(now),
        source: { slug, contract_id: id, version_no: record.current_version_no },
        name: record.name,
        template_id: record.template_id,
        definition,
        definition_hash: digestOf(definition),
      };
    },

    async importContract(slug, caller, envelope, name) {
      if (digestOf(envelope.definition) !== envelope.definition_hash.toLowerCase()) {
        throw errors.validation('The envelope definition does not match its definition_hash; import the envelope exactly as exported', {
          code: 'envelope_altered',
          issues: [{ path: 'envelope.definition_hash', message: 'does not match sha256 of the canonical definition' }],
        });
      }
      return insert(slug, caller, {
        definition: envelope.definition,
        name: name ?? envelope.name,
        template_id: envelope.template_id,
        note: `imported from ${envelope.source.slug}/${envelope.source.contract_id} v${envelope.source.version_no}`,
        audit: 'contract.imported',
      });
    },
  };
}
