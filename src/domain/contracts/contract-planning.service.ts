import { errors } from '../../errors.js';
import { tickStartMs } from '../../lib/clock.js';
import type { Caller } from '../identity/caller.js';
import { evaluateAggregate } from './aggregate.js';
import { evaluateCondition, overBudget } from './condition.js';
import { initialState } from './contract-runtime.js';
import type { ContractsCore } from './contracts-core.js';
import { secretsOf, type ContractRecord, type Definition, type Runtime, type TransitionRecord, type TransitionSpec } from './contract.types.js';
import { predictFires, watermarkOf } from './schedule.js';
import { describeTrigger, isEventTrigger, isTimeTrigger, nextDue, transitionKey } from './triggers.js';

export interface CandidateResult {
  from: string;
  to: string;
  outcome: 'fire' | 'filtered' | 'pass';
  reason: string | null;
  condition: string | null;
  trigger_kind: string | null;
}

export interface Report {
  current_state: string;
  would_fire: boolean;
  results: CandidateResult[];
}

export interface PredictedFireView {
  tick_number: number;
  at: string;
  trigger_kind: string;
  from: string;
  to: string;
}

/** Reads that plan without side effects: dry runs, simulations, fire predictions and the preview. */
export interface ContractPlanning {
  dryRun(slug: string, id: string, opts: { to?: string | undefined; input: Record<string, unknown>; at_tick?: number | undefined }): Promise<Report>;
  simulate(
    caller: Caller,
    opts: {
      definition?: unknown;
      slug?: string | undefined;
      contract_id?: string | undefined;
      from?: string | undefined;
      to?: string | undefined;
      input: Record<string, unknown>;
    },
  ): Promise<Report>;
  nextFires(record: ContractRecord, count: number): Promise<{ fires: PredictedFireView[]; note: string | null }>;
  preview(
    slug: string,
    id: string,
  ): Promise<{
    contract_id: string;
    current_state: string;
    status: ContractRecord['status'];
    current_version_no: number;
    fire_count: number;
    next_fire: number | null;
    last_transition: TransitionRecord | null;
    tick_number: number;
  }>;
}

/** Where a candidate is evaluated: with a stored contract, scheduled and aggregate triggers use its live state. */
interface Context {
  definition: Definition;
  state: string;
  input: Record<string, unknown>;
  to?: string | undefined;
  tick: number;
  live?: { record: ContractRecord; runtime: Runtime };
}

export function createContractPlanning(core: ContractsCore): ContractPlanning {
  const { contracts } = core;
  const { clock, contractEvents } = core.deps;

  async function evaluate(ctx: Context): Promise<Report> {
    const results: CandidateResult[] = [];
    const scope = { ...(ctx.definition.defaults ?? {}), ...ctx.input };
    for (const t of ctx.definition.transitions) {
      if (t.from !== ctx.state || (ctx.to !== undefined && t.to !== ctx.to)) continue;
      const base = { from: t.from, to: t.to, condition: t.condition ?? null, trigger_kind: t.trigger?.kind ?? null };
      const gate = await triggerGate(t, ctx);
      if (gate.pass) {
        results.push({ ...base, outcome: 'pass', reason: gate.reason });
        continue;
      }
      const checked =
        t.condition === undefined ? { ok: true as const, value: true } : evaluateCondition(t.condition, { ...scope, ...gate.extra }, secretsOf(ctx.definition));
      if (!checked.ok && checked.overBudget) throw overBudget(checked.error);
      if (!checked.ok) results.push({ ...base, outcome: 'filtered', reason: checked.error });
      else if (!checked.value) results.push({ ...base, outcome: 'filtered', reason: `condition is false: ${t.condition}` });
      else results.push({ ...base, outcome: 'fire', reason: gate.reason });
    }
    return { current_state: ctx.state, would_fire: results.some((r) => r.outcome === 'fire'), results };
  }

  /** Whether a transition's trigger lets it fire now; `pass` when it does not apply yet. */
  async function triggerGate(t: TransitionSpec, ctx: Context): Promise<{ pass: boolean; reason: string | null; extra?: Record<string, unknown> }> {
    const trigger = t.trigger;
    if (trigger === undefined) return { pass: false, reason: 'driven by a caller' };
    const live = ctx.live;
    if (isTimeTrigger(trigger)) {
      if (!live) return { pass: false, reason: `when its schedule fires (${describeTrigger(trigger)})` };
      if (live.record.status !== 'active') return { pass: true, reason: `the contract is ${live.record.status}` };
      const due = nextDue(trigger, {
        entered_tick: live.runtime.entered_tick,
        anchor_tick: live.record.anchor_tick,
        watermark: watermarkOf(live.record, live.runtime, transitionKey(t)),
      });
      if (due === undefined) return { pass: true, reason: 'already fired; it will not fire again' };
      if (due > ctx.tick) return { pass: true, reason: `next due at tick ${due} (${describeTrigger(trigger)})` };
      return { pass: false, reason: `due at tick ${due}` };
    }
    if (isEventTrigger(trigger) && trigger.kind === 'on_aggregate' && live) {
      const agg = await evaluateAggregate(contractEvents, live.record.slug, trigger, ctx.tick);
      const text = `${trigger.aggregate!.fn}=${agg.value ?? 'none'} over ${agg.events} events, needs ${trigger.op} ${trigger.threshold}`;
      return agg.holds ? { pass: false, reason: text, extra: { aggregate: agg.value, aggregate_events: agg.events } } : { pass: true, reason: text };
    }
    return { pass: false, reason: `when it arrives with this input (${describeTrigger(trigger)})` };
  }

  return {
    async dryRun(slug, id, opts) {
      const record = await core.find(slug, id);
      const runtime = await contracts.runtime(record);
      return evaluate({
        definition: record.definition,
        state: runtime.state,
        input: opts.input,
        to: opts.to,
        tick: opts.at_tick ?? clock.tick(),
        live: { record, runtime },
      });
    },

    async simulate(caller, opts) {
      if ((opts.definition === undefined) === (opts.contract_id === undefined)) {
        throw errors.validation('Give a definition, or slug and contract_id of a stored contract (not both)', {
          issues: [{ path: 'definition', message: 'give definition or slug + contract_id' }],
        });
      }
      if (opts.definition !== undefined) {
        const definition = await core.validate(opts.definition, caller);
        const state = opts.from ?? initialState(definition);
        if (!Object.hasOwn(definition.states, state))
          throw errors.validation(`"${state}" is not a state of this definition`, { issues: [{ path: 'from', message: 'unknown state' }] });
        return evaluate({ definition, state, input: opts.input, to: opts.to, tick: clock.tick() });
      }
      if (opts.slug === undefined)
        throw errors.validation('contract_id goes with slug, the machine that holds the contract', {
          issues: [{ path: 'slug', message: 'required with contract_id' }],
        });
      const role = await core.deps.machines.roleOf(opts.slug, caller);
      if (role === undefined || role === 'none') throw errors.notFound(`No machine "${opts.slug}"`, { slug: opts.slug });
      const record = await core.find(opts.slug, opts.contract_id!);
      const runtime = await contracts.runtime(record);
      const state = opts.from ?? runtime.state;
      if (!Object.hasOwn(record.definition.states, state))
        throw errors.validation(`"${state}" is not a state of this contract`, { issues: [{ path: 'from', message: 'unknown state' }] });
      const live = state === runtime.state ? { record, runtime } : undefined;
      return evaluate({ definition: record.definition, state, input: opts.input, to: opts.to, tick: clock.tick(), ...(live ? { live } : {}) });
    },

    async nextFires(record, count) {
      if (record.status !== 'active') {
        return { fires: [], note: `The contract is ${record.status}; ${record.status === 'paused' ? 'resume it to schedule fires' : 'it never fires again'}` };
      }
      const runtime = await contracts.runtime(record);
      const predicted = predictFires(record, runtime, count, clock.tick());
      const fires = predicted.map((f) => ({
        tick_number: f.tick_number,
        at: new Date(tickStartMs(f.tick_number)).toISOString(),
        trigger_kind: f.trigger_kind,
        from: f.from,
        to: f.to,
      }));
      if (fires.length === count) return { fires, note: null };
      const eventDriven = record.definition.transitions.some((t) => isEventTrigger(t.trigger));
      const why =
        fires.length === 0
          ? `No scheduled transition leaves state "${runtime.state}"${eventDriven ? '; this contract moves on events, which cannot be predicted' : '; it moves only when a caller drives it'}`
          : `Only ${fires.length} scheduled ${fires.length === 1 ? 'fire follows' : 'fires follow'}; after ${fires.length === 1 ? 'it' : 'them'} no scheduled transition is due`;
      return { fires, note: why };
    },

    async preview(slug, id) {
      const record = await core.find(slug, id);
      const runtime = await contracts.runtime(record);
      return {
        contract_id: id,
        current_state: runtime.state,
        status: record.status,
        current_version_no: record.current_version_no,
        fire_count: runtime.fire_count,
        next_fire: core.nextFire(record, runtime),
        last_transition: runtime.last ?? null,
        tick_number: clock.tick(),
      };
    },
  };
}
