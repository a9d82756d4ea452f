import type { Clock } from '../../lib/clock.js';
import { afterCommit } from '../../lib/commit-scope.js';
import { digestOf } from '../../lib/hash.js';
import type { RowInput } from '../../storage/port.js';
import type { ChainService } from '../chain/chain.service.js';
import { fireAuditPayload, fireEnvelopeRequest } from './fire-records.js';
import { evaluateCondition } from './condition.js';
import { ownerCondition } from './owner-condition.js';
import type { ConditionAllowance } from './condition-allowance.js';
import type { ContractHub } from './contract-hub.js';
import type { ContractRepository } from './contract-repository.js';
import { secretsOf, type ContractRecord, type EventRecord, type TransitionRecord, type TransitionSpec } from './contract.types.js';
import { runOperators, type OperatorRunDeps } from './operator-run.js';
import { resultingState } from './schedule.js';
import { oneShotTick, transitionKey } from './triggers.js';
import type { MintOutcome, MintRequest } from '../economy/envelope-mint.js';
import type { MachinesService } from '../chain/machines.service.js';
import { principalRefusal } from './principal-right.js';
import type { MachineRepository } from '../chain/machine-repository.js';
import type { ContractEventRepository } from './contract-event-repository.js';

export type TriggeredBy = 'caller' | 'trigger' | 'fire_now' | 'event';

export interface FireRequest {
  record: ContractRecord;
  /** Index of the definition transition to take. */
  index: number;
  input: Record<string, unknown>;
  triggered_by: TriggeredBy;
  actor: string | null;
  /** For a scheduled fire: the due tick it fires for and how many missed ones it stands for. */
  due?: { tick: number; skipped: number };
  /** How many emits led to this fire (emitted events cascade at most `MAX_CASCADE` deep). */
  depth?: number;
}

/** An event emitted by a post-action, handed to the router for delivery to listening contracts. */
export interface EmittedEvent {
  source: string;
  name: string;
  payload: Record<string, unknown>;
  origin: string;
  depth: number;
}

export interface ContractEngine {
  /**
   * One fire, in order: condition → operators → receipt → transition row (success or not) → envelope →
   * audit row on the machine's chain → current state → emitted events → live streams. Callers hold the contract's
   * lock. A failed condition or compute is recorded, not thrown.
   */
  fire(req: FireRequest): Promise<FiredTransition>;
}

/** A transition row as fired, with the envelope it minted (not stored in the row: the chain holds it). */
export type FiredTransition = TransitionRecord & { tally?: { token_id: string; remaining: number } };

export interface EngineDeps extends OperatorRunDeps {
  contractRecords: ContractRepository;
  contractEvents: ContractEventRepository;
  machineRecords: MachineRepository;
  chain: ChainService;
  clock: Clock;
  hub: ContractHub;
  /** Delivers an emitted event to listening contracts (asynchronously, outside this contract's lock). */
  deliver: (event: EmittedEvent) => void;
  /** Re-reads the principal's role at each fire nobody asked for (`principal-right.ts`); absent: not re-checked. */
  machines?: MachinesService;
  /** Mints the envelope of a successful fire; absent: no envelope. */
  mintEnvelope?: (req: MintRequest) => Promise<MintOutcome>;
  onError: (err: unknown) => void;
  /** Condition work of fires no caller asked for (schedules, events), per contract owner; absent: unbounded. */
  ownerConditionAllowance?: ConditionAllowance;
}

export function createContractEngine(deps: EngineDeps): ContractEngine {
  const { contractRecords, contractEvents, machineRecords, chain, clock, hub } = deps;

  async function emit(record: ContractRecord, transition: TransitionSpec, row: TransitionRecord, scope: Record<string, unknown>, depth: number) {
    for (const action of transition.post_actions ?? []) {
      if (action.type !== 'emit' || !action.event) continue;
      const payload = { ...(action.payload ?? {}), transition_id: row.id, from_state: row.from_state, to_state: row.to_state, input: scope };
      const event = await contractEvents.appendEvent(
        record.slug,
        (head) =>
          ({
            tick: Math.max(row.tick_number, head?.tick ?? 0),
            type: action.event!,
            name: action.event!,
            contract_id: record.id,
            payload,
            created_at: new Date(clock.now()).toISOString(),
          }) as RowInput<EventRecord>,
      );
      hub.publishEvent(record.slug, event);
      // Routed to other contracts once the event is committed: their fires take their own locks.
      afterCommit(() => deps.deliver({ source: record.slug, name: event.name, payload, origin: record.id, depth: depth + 1 }));
    }
  }

  async function audit(record: ContractRecord, row: TransitionRecord, actor: string | null) {
    const machine = await machineRecords.get(record.slug);
    if (!machine) return;
    // The same payload the audit recovery rebuilds from the row when a crash cuts this append off.
    const payload = fireAuditPayload(row);
    await chain.append(machine, { type: 'contract.transition', actor_uid: actor, payload_digest: digestOf(payload), payload, transition_id: row.id });
  }

  async function mintFor(record: ContractRecord, row: TransitionRecord, actor: string | null) {
    if (!deps.mintEnvelope || row.envelope_for === undefined) return undefined;
    const outcome = await deps.mintEnvelope(fireEnvelopeRequest(record.slug, row, actor));
    return outcome.minted ? { token_id: outcome.envelope.token_id, remaining: Math.floor(outcome.tokens_remaining) } : undefined;
  }

  return {
    async fire(req) {
      const { record } = req;
      const transition = record.definition.transitions[req.index]!;
      const runtime = await contractRecords.runtime(record);
      const tick = clock.tick();
      const scope = { ...(record.definition.defaults ?? {}), ...req.input };
      const key = transitionKey(transition);
      const watermarks = { ...runtime.watermarks };
      if (req.due) watermarks[key] = req.due.tick;
      else if (transition.trigger?.kind === 'one_shot' && req.triggered_by === 'fire_now') watermarks[key] = oneShotTick(transition.trigger);

      let failure: { code: string; message: string } | undefined;
      if (transition.condition !== undefined) {
        // A caller's own request is charged to the caller by the pipeline; the rest to the contract's owner.
        const outcome =
          req.triggered_by === 'trigger' || req.triggered_by === 'event'
            ? ownerCondition(deps.ownerConditionAllowance, record, transition.condition, scope)
            : evaluateCondition(transition.condition, scope, secretsOf(record.definition));
        if (!outcome.ok) failure = { code: outcome.overBudget ? 'condition_over_budget' : 'condition_failed', message: outcome.error };
        else if (!outcome.value) failure = { code: 'condition_failed', message: `condition is false: ${transition.condition}` };
      }
      // A schedule or an event fires for the contract's principal: only while it still holds its right.
      if (req.actor === null && deps.machines) failure = (await principalRefusal(deps.machines, record)) ?? failure;
      const ids = transition.operators ?? (transition.operator !== undefined ? [transition.operator] : []);
      const run = failure ? undefined : await runOperators(deps, ids, scope, transition.operator_inputs);
      if (run && !run.ok) failure = { code: 'compute_failed', message: run.error };
      const done = run?.ok ? run : undefined;
      const success = failure === undefined;
      const to = success ? resultingState(transition) : runtime.state;
      // A scheduled fire is fenced in the data too: a due tick the transitions hold is refused, nothing written.
      const fence = req.due ? { key, due: req.due.tick } : undefined;
      const row = await contractRecords.appendTransition(
        record,
        {
          contract_id: record.id,
          transition_type: 'contract',
          tick_number: tick,
          from_state: runtime.state,
          to_state: to,
          transition_index: req.index,
          operators: run?.chain ?? ids,
          // What the condition and operators saw (defaults under the given input): the receipt binds it.
          input: scope,
          result: done ? { ...done.output, pre_actions: preActionNotes(transition, scope) } : null,
          success,
          error: failure?.code ?? null,
          error_message: failure?.message ?? null,
          triggered_by: req.triggered_by,
          proof_digest: done?.proof_digest ?? null,
          receipt: done?.receipt ?? null,
          due_tick: req.due?.tick ?? null,
          skipped: req.due?.skipped ?? 0,
          fire_count: runtime.fire_count + (success ? 1 : 0),
          entered_tick: to !== runtime.state ? (req.due?.tick ?? tick) : runtime.entered_tick,
          watermarks,
          emitted: success ? (transition.post_actions ?? []).flatMap((a) => (a.type === 'emit' && a.event ? [a.event] : [])) : [],
          version_no: record.current_version_no,
          // Written before the mint, so the audit recovery knows to mint it if a crash comes between.
          ...(success && deps.mintEnvelope ? { envelope_for: req.actor ?? record.created_by } : {}),
          created_at: new Date(clock.now()).toISOString(),
        },
        fence,
      );
      let tally: FiredTransition['tally'];
      if (success) {
        // The envelope before the audit row: a fire with its audit row has had its mint decided, so the
        // audit recovery mints only for fires a crash cut off before it (see `audit-recovery.service.ts`).
        tally = await mintFor(record, row, req.actor);
        // The row is durable: an audit or emit failure is logged, never turned into a second fire.
        await audit(record, row, req.actor).catch(deps.onError);
        await emit(record, transition, row, scope, req.depth ?? 0).catch(deps.onError);
      }
      hub.publishTransition(row, record.slug);
      return tally ? { ...row, tally } : row;
    },
  };
}

/**
 * External API calls are not made: this server keeps no registry of external APIs (and calling out from
 * a contract would be a server-side request forgery channel). A bound value given in the input is used.
 */
function preActionNotes(transition: TransitionSpec, scope: Record<string, unknown>) {
  return (transition.pre_actions ?? [])
    .filter((a) => a.type === 'api_call')
    .map((a) => ({ api: a.api, path: a.path ?? '', bind: a.bind ?? null, status: a.bind && scope[a.bind] !== undefined ? 'from_input' : 'not_called' }));
}
