import { errors } from '../../errors.js';
import type { Caller } from '../identity/caller.js';
import { evaluateCondition, overBudget } from './condition.js';
import type { ContractsCore } from './contracts-core.js';
import { secretsOf, type ContractRecord, type ContractStatus, type TransitionRecord } from './contract.types.js';
import { nextScheduled } from './schedule.js';
import { isTimeTrigger } from './triggers.js';

export interface StatusAnswer {
  contract_id: string;
  status: ContractStatus;
  next_fire: number | null;
}

/** Scheduling controls, the owner's kill switch and driven transitions. */
export interface ContractControl {
  pause(slug: string, id: string, caller: Caller): Promise<StatusAnswer>;
  resume(slug: string, id: string, caller: Caller): Promise<StatusAnswer>;
  freeze(slug: string, id: string, caller: Caller): Promise<StatusAnswer>;
  skipNext(slug: string, id: string, caller: Caller): Promise<StatusAnswer & { skipped_tick: number | null }>;
  fireNow(
    slug: string,
    id: string,
    caller: Caller,
    opts: { to?: string | undefined; input?: Record<string, unknown> | undefined },
  ): Promise<{ contract_id: string; fired: boolean; new_state: string; transition: TransitionRecord; next_fire: number | null }>;
  kill(slug: string, id: string, caller: Caller, reason: string): Promise<{ contract_id: string; status: 'killed'; killed_tick: number }>;
  transition(
    slug: string,
    id: string,
    caller: Caller,
    to: string,
    input: Record<string, unknown>,
  ): Promise<{ transition_id: string; previous_state: string; new_state: string; proof_digest: string | null; tick_number: number }>;
}

export function createContractControl(core: ContractsCore): ContractControl {
  const { contracts } = core;
  const { clock, chain } = core.deps;

  const answer = async (record: ContractRecord): Promise<StatusAnswer> => ({
    contract_id: record.id,
    status: record.status,
    next_fire: core.nextFire(record, await contracts.runtime(record)),
  });

  const refuseEnded = (record: ContractRecord, verb: string) => {
    if (record.status === 'killed' || record.status === 'frozen') {
      throw errors.conflict(`Contract "${record.id}" is ${record.status} and cannot ${verb}`, { status: record.status });
    }
  };

  /** Changes a contract's record under its lock, audits the change, then re-arms its schedule. */
  async function change(
    slug: string,
    id: string,
    caller: Caller,
    verb: string,
    fn: (r: ContractRecord) => Partial<ContractRecord> | undefined | Promise<Partial<ContractRecord> | undefined>,
    audit: (r: ContractRecord) => Record<string, unknown> = () => ({}),
  ) {
    const record = await core.locked(id, async () => {
      const current = await core.find(slug, id);
      const patch = await fn(current);
      if (patch === undefined) return current;
      chain.assertWritable(await core.machine(slug));
      const saved = (await contracts.update(id, (r) => ({ ...r, ...patch, updated_at: new Date(clock.now()).toISOString() })))!;
      await core.auditRow(slug, `contract.${verb}`, caller.uid, { contract_id: id, status: saved.status, ...audit(saved) });
      return saved;
    });
    await core.refresh(record);
    return record;
  }

  return {
    async pause(slug, id, caller) {
      const record = await change(slug, id, caller, 'paused', (r) => {
        refuseEnded(r, 'be paused');
        return r.status === 'paused' ? undefined : { status: 'paused' };
      });
      return answer(record);
    },

    async resume(slug, id, caller) {
      const record = await change(slug, id, caller, 'resumed', (r) => {
        refuseEnded(r, 'be resumed');
        // Fires due while paused are dropped: recurring and cron schedules restart from now.
        return r.status === 'active' ? undefined : { status: 'active', anchor_tick: clock.tick() };
      });
      return answer(record);
    },

    async freeze(slug, id, caller) {
      const record = await change(slug, id, caller, 'frozen', (r) => {
        if (r.status === 'killed') throw errors.conflict(`Contract "${id}" is killed and cannot be frozen`, { status: r.status });
        return r.status === 'frozen' ? undefined : { status: 'frozen' };
      });
      return answer(record);
    },

    async skipNext(slug, id, caller) {
      let skipped: number | null = null;
      const record = await change(
        slug,
        id,
        caller,
        'skipped_next',
        async (r) => {
          refuseEnded(r, 'skip a fire');
          const next = nextScheduled(r, await contracts.runtime(r));
          if (!next) return undefined;
          skipped = next.due;
          return { skip_floor: { ...r.skip_floor, [next.key]: next.due } };
        },
        () => ({ skipped_tick: skipped }),
      );
      return { ...(await answer(record)), skipped_tick: skipped };
    },

    async fireNow(slug, id, caller, opts) {
      const row = await core.locked(id, async () => {
        const record = await core.find(slug, id);
        refuseEnded(record, 'fire');
        chain.assertWritable(await core.machine(slug));
        const runtime = await contracts.runtime(record);
        const scheduled = record.definition.transitions
          .map((transition, index) => ({ transition, index }))
          .filter(
            ({ transition }) => transition.from === runtime.state && isTimeTrigger(transition.trigger) && (opts.to === undefined || transition.to === opts.to),
          );
        if (scheduled.length === 0) {
          throw errors.conflict(
            `No scheduled transition leaves state "${runtime.state}"${opts.to ? ` for "${opts.to}"` : ''}; drive it with POST /api/chain/${slug}/contracts/${id}/transition`,
            { current_state: runtime.state },
          );
        }
        const next = nextScheduled(record, runtime);
        const pick = scheduled.find((s) => s.index === next?.index) ?? scheduled[0]!;
        return core.engine.fire({ record, index: pick.index, input: opts.input ?? {}, triggered_by: 'fire_now', actor: caller.uid });
      });
      const record = await core.find(slug, id);
      await core.refresh(record);
      return {
        contract_id: id,
        fired: row.success,
        new_state: row.to_state,
        transition: row,
        next_fire: core.nextFire(record, await contracts.runtime(record)),
      };
    },

    async kill(slug, id, caller, reason) {
      const record = await change(
        slug,
        id,
        caller,
        'killed',
        (r) => (r.status === 'killed' ? undefined : { status: 'killed', killed: { tick: clock.tick(), reason, by: caller.uid! } }),
        (r) => ({ reason, killed_tick: r.killed?.tick ?? null }),
      );
      return { contract_id: id, status: 'killed', killed_tick: record.killed?.tick ?? clock.tick() };
    },

    async transition(slug, id, caller, to, input) {
      const { row, record } = await core.locked(id, async () => {
        const record = await core.find(slug, id);
        refuseEnded(record, 'transition');
        chain.assertWritable(await core.machine(slug));
        const runtime = await contracts.runtime(record);
        const candidates = [...record.definition.transitions.entries()].filter(([, t]) => t.from === runtime.state && t.to === to);
        if (candidates.length === 0) {
          throw errors.validation(`No transition: ${runtime.state} → ${to}`, { code: 'no_transition', current_state: runtime.state, to });
        }
        const scope = { ...(record.definition.defaults ?? {}), ...input };
        const passing = candidates.find(([, t]) => {
          if (t.condition === undefined) return true;
          const outcome = evaluateCondition(t.condition, scope, secretsOf(record.definition));
          if (!outcome.ok && outcome.overBudget) throw overBudget(outcome.error);
          return outcome.ok && outcome.value;
        });
        const [index] = passing ?? candidates[0]!;
        const row = await core.engine.fire({ record, index, input, triggered_by: 'caller', actor: caller.uid });
        return { row, record };
      });
      await core.refresh(record);
      if (!row.success) {
        throw errors.validation(`${row.error}: ${row.error_message}`, { code: row.error, transition_id: row.id, reason: row.error_message });
      }
      return {
        transition_id: row.id,
        previous_state: row.from_state,
        new_state: row.to_state,
        proof_digest: row.proof_digest,
        tick_number: row.tick_number,
        ...(row.tally ? { tally: row.tally } : {}),
      };
    },
  };
}
