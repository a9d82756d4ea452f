import { errors } from '../../errors.js';
import { keysetPage } from '../../lib/keyset-page.js';
import type { ContractPlanning, PredictedFireView } from './contract-planning.service.js';
import type { ContractsCore } from './contracts-core.js';
import type { ContractRecord, Definition, TransitionRecord, TriggerSpec } from './contract.types.js';
import { isEventTrigger, triggerEvents } from './triggers.js';

/** Next fires shown for a public contract. */
export const PUBLIC_FIRES = 10;

export interface PublicContract {
  id: string;
  slug: string;
  name: string;
  template_id: string | null;
  current_state: string;
  status: ContractRecord['status'];
  current_version_no: number;
  fire_count: number;
  next_fire: number | null;
  created_at: string;
}

export interface Subscriber {
  slug: string;
  contract_id: string;
  events: string[];
  since_tick: number;
}

export interface Branch {
  to: string;
  operators: string[];
  condition: string | null;
  trigger: TriggerSpec | null;
  proof_required: boolean;
}

/** Contracts of public machines, readable without a key; a private machine's contracts never appear. */
export interface PublicDirectory {
  list(query: {
    q?: string | undefined;
    slug?: string | undefined;
    template_id?: string | undefined;
    state?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<{ contracts: PublicContract[]; next_cursor: string | null }>;
  get(id: string): Promise<{ contract: PublicContract & { definition: Definition }; last_fire_tick: number | null }>;
  audit(id: string, limit: number): Promise<TransitionRecord[]>;
  nextFires(id: string): Promise<{ fires: PredictedFireView[]; note: string | null }>;
  subscribers(id: string): Promise<Subscriber[]>;
  superposition(id: string): Promise<{ current_state: string; tick_number: number; branches: Branch[] }>;
}

export function createPublicDirectory(core: ContractsCore, planning: ContractPlanning): PublicDirectory {
  const { contracts } = core;
  const { machineRecords, clock } = core.deps;

  // Contracts stored before the listener index existed are entered in it from start, in the background; `subscribers` waits for it.
  contracts.listenersReady().catch(() => undefined);

  /** The contract when its machine is public now; NOT_FOUND otherwise, without saying which. */
  async function publicContract(id: string): Promise<ContractRecord> {
    const record = await contracts.get(id);
    const machine = record ? await machineRecords.get(record.slug) : undefined;
    if (!record || !machine?.is_public) throw errors.notFound(`No public contract "${id}"`, { code: 'contract_not_found', id });
    return record;
  }

  async function summary(record: ContractRecord): Promise<PublicContract> {
    const runtime = await contracts.runtime(record);
    return {
      id: record.id,
      slug: record.slug,
      name: record.name,
      template_id: record.template_id,
      current_state: runtime.state,
      status: record.status,
      current_version_no: record.current_version_no,
      fire_count: runtime.fire_count,
      next_fire: core.nextFire(record, runtime),
      created_at: record.created_at,
    };
  }

  return {
    async list(query) {
      const q = query.q?.toLowerCase();
      const matches = (c: ContractRecord) =>
        (query.template_id === undefined || c.template_id === query.template_id) && (q === undefined || c.name.toLowerCase().includes(q) || c.slug.includes(q));
      /** The public ones among `found` (newest first) that match, as shown; undefined for the others. */
      const keep = async (found: ContractRecord[]): Promise<Array<PublicContract | undefined>> => {
        // Only the machines these contracts are on are looked up, not every public machine.
        const slugs = await machineRecords.publicAmong(found.filter(matches).map((c) => c.slug));
        return Promise.all(
          found.map(async (c) => {
            if (!matches(c) || !slugs.has(c.slug)) return undefined;
            const view = await summary(c);
            return query.state === undefined || view.current_state === query.state ? view : undefined;
          }),
        );
      };
      // Newest first a page at a time from the cursor on (one machine's contracts from the slug index),
      // stopping once the page asked for (and one more) is in hand: which contracts are public follows
      // their machines' visibility, checked per page of candidates.
      const where = {
        ...(query.slug === undefined ? {} : { slug: query.slug }),
        ...(query.template_id === undefined ? {} : { template_id: query.template_id }),
      };
      const { items, next_cursor } = await keysetPage({
        kind: 'public-contracts',
        cursor: query.cursor || undefined,
        limit: query.limit,
        fetch: (after, size) => contracts.newest(where, { limit: size, after }),
        keep,
      });
      return { contracts: items, next_cursor };
    },

    async get(id) {
      const record = await publicContract(id);
      const runtime = await contracts.runtime(record);
      const lastFire = (await contracts.recentTransitions(record, 50)).find((r) => r.success);
      return {
        contract: { ...(await summary(record)), definition: record.definition },
        last_fire_tick: lastFire?.tick_number ?? runtime.last?.tick_number ?? null,
      };
    },

    async audit(id, limit) {
      return contracts.recentTransitions(await publicContract(id), limit);
    },

    async nextFires(id) {
      return planning.nextFires(await publicContract(id), PUBLIC_FIRES);
    },

    async subscribers(id) {
      const record = await publicContract(id);
      const emits = new Set(
        record.definition.transitions.flatMap((t) => (t.post_actions ?? []).flatMap((a) => (a.type === 'emit' && a.event ? [a.event] : []))),
      );
      if (emits.size === 0) return [];
      // Only the contracts listening to this machine are read (the repository's listener index), in
      // creation order; live ones on machines public now are shown: a private machine's stay unacknowledged.
      const live = (await contracts.listeners(record.slug)).filter((c) => c.status !== 'killed' && c.status !== 'frozen');
      const slugs = await machineRecords.publicAmong(live.map((c) => c.slug));
      const listeners = live.filter((c) => slugs.has(c.slug));
      const out: Subscriber[] = [];
      for (const c of listeners) {
        const events = new Set<string>();
        for (const t of c.definition.transitions) {
          if (!isEventTrigger(t.trigger) || t.trigger.machine !== record.slug) continue;
          for (const name of triggerEvents(t.trigger)) if (emits.has(name)) events.add(name);
        }
        if (events.size > 0) out.push({ slug: c.slug, contract_id: c.id, events: [...events].sort(), since_tick: c.created_tick });
      }
      return out;
    },

    async superposition(id) {
      const record = await publicContract(id);
      const { state } = await contracts.runtime(record);
      const branches = record.definition.transitions
        .filter((t) => t.from === state)
        .map((t) => ({
          to: t.to,
          operators: t.operators ?? (t.operator !== undefined ? [t.operator] : []),
          condition: t.condition ?? null,
          trigger: t.trigger ?? null,
          proof_required: t.proof_required ?? false,
        }));
      return { current_state: state, tick_number: clock.tick(), branches };
    },
  };
}
