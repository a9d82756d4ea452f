import { evaluateCondition } from './condition.js';
import { secretsOf, type ContractRecord, type Runtime, type TransitionSpec, type TriggerSpec } from './contract.types.js';
import { collapse, isTimeTrigger, nextDue, transitionKey } from './triggers.js';

/** A scheduled transition of the current state and the tick it is due. */
export interface DueFire {
  index: number;
  transition: TransitionSpec;
  trigger: TriggerSpec;
  key: string;
  due: number;
}

/** Watermark of a scheduled transition: the later of its last fired due tick and a skip-next floor. */
export function watermarkOf(record: ContractRecord, runtime: Pick<Runtime, 'watermarks'>, key: string): number | undefined {
  const fired = runtime.watermarks[key];
  const floor = record.skip_floor[key];
  if (fired === undefined) return floor;
  return floor === undefined ? fired : Math.max(fired, floor);
}

/**
 * The earliest due scheduled transition leaving the runtime's state (ties: the first in the
 * definition), or undefined. Status is not looked at: callers decide whether the contract runs.
 */
export function nextScheduled(record: ContractRecord, runtime: Pick<Runtime, 'state' | 'entered_tick' | 'watermarks'>): DueFire | undefined {
  let best: DueFire | undefined;
  record.definition.transitions.forEach((transition, index) => {
    const trigger = transition.trigger;
    if (transition.from !== runtime.state || !isTimeTrigger(trigger)) return;
    const key = transitionKey(transition);
    const due = nextDue(trigger, { entered_tick: runtime.entered_tick, anchor_tick: record.anchor_tick, watermark: watermarkOf(record, runtime, key) });
    if (due !== undefined && (best === undefined || due < best.due)) best = { index, transition, trigger, key, due };
  });
  return best;
}

/** The state a transition leaves the contract in when it succeeds (a set_state post-action wins). */
export function resultingState(transition: TransitionSpec): string {
  let state = transition.to;
  for (const action of transition.post_actions ?? []) if (action.type === 'set_state' && action.state) state = action.state;
  return state;
}

export interface PredictedFire {
  tick_number: number;
  trigger_kind: string;
  from: string;
  to: string;
  index: number;
}

/**
 * The next `count` fires the scheduler will make from `nowTick` on, found by running the scheduler's
 * own rules forward: overdue fires collapse into one, a scheduled fire gets the definition's defaults
 * as input (so its condition decides deterministically whether the state moves), and a fire that moves
 * the state re-anchors the next state's schedules at its due tick. Event-driven moves in between are
 * not foreseeable and not predicted.
 */
export function predictFires(record: ContractRecord, runtime: Runtime, count: number, nowTick: number): PredictedFire[] {
  const sim = { state: runtime.state, entered_tick: runtime.entered_tick, watermarks: { ...runtime.watermarks } };
  const fires: PredictedFire[] = [];
  const input = { ...(record.definition.defaults ?? {}) };
  for (let guard = 0; fires.length < count && guard < count * 4 + 16; guard++) {
    const next = nextScheduled(record, sim);
    if (!next) break;
    const { fireDue } = collapse(next.trigger, next.due, Math.max(nowTick, next.due));
    fires.push({ tick_number: fireDue, trigger_kind: next.trigger.kind, from: next.transition.from, to: next.transition.to, index: next.index });
    sim.watermarks[next.key] = fireDue;
    const condition = next.transition.condition;
    const passes =
      condition === undefined ||
      (() => {
        const outcome = evaluateCondition(condition, input, secretsOf(record.definition));
        return outcome.ok && outcome.value;
      })();
    if (!passes) continue;
    const to = resultingState(next.transition);
    if (to !== sim.state) {
      sim.state = to;
      sim.entered_tick = fireDue;
    }
  }
  return fires;
}
