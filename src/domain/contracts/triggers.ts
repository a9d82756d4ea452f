import { Cron } from 'croner';
import { TICK_MS } from '../../lib/clock.js';
import { digestOf } from '../../lib/hash.js';
import type { Definition, TransitionSpec, TriggerSpec } from './contract.types.js';

/**
 * Time arithmetic of scheduled triggers, all in ticks. A time given in unix time (one_shot `at_unix`,
 * cron occurrences) is due at the first tick that starts at or after it, so a fire is never early and
 * at most one tick late. Recurring and cron schedules count from a base tick: the latest of when the
 * contract entered its state, its anchor (create, edit, rollback, resume) and the last due tick fired.
 * A one_shot is due at its time, or on arrival when that time passed before its state was entered.
 */

const TIME_KINDS = new Set(['one_shot', 'every', 'recurring', 'cron']);
const EVENT_KINDS = new Set(['on_event', 'on_events', 'on_aggregate']);
/** Occurrences counted when collapsing missed cron fires; beyond it the count is a floor. */
const MAX_COUNTED = 100_000;

export type TimeTrigger = TriggerSpec & { kind: 'one_shot' | 'every' | 'recurring' | 'cron' };
export type EventTrigger = TriggerSpec & { kind: 'on_event' | 'on_events' | 'on_aggregate' };

export const isTimeTrigger = (t: TriggerSpec | undefined): t is TimeTrigger => t !== undefined && TIME_KINDS.has(t.kind);
export const isEventTrigger = (t: TriggerSpec | undefined): t is EventTrigger => t !== undefined && EVENT_KINDS.has(t.kind);

/** Event names an event trigger listens to. */
export function triggerEvents(t: TriggerSpec): string[] {
  if (t.kind === 'on_events') return t.events ?? [];
  return t.event !== undefined ? [t.event] : [];
}

/** The other machines whose events a contract on `slug` listens to (a trigger without `machine`, or naming `slug`, listens to its own). */
export function listenedMachines(definition: Definition, slug: string): Set<string> {
  const machines = new Set<string>();
  for (const { trigger } of definition.transitions) {
    if (isEventTrigger(trigger) && trigger.machine !== undefined && trigger.machine !== slug) machines.add(trigger.machine);
  }
  return machines;
}

/** Stable key of a scheduled transition: watermarks survive edits that leave it unchanged. */
export function transitionKey(tr: TransitionSpec): string {
  return digestOf({ from: tr.from, to: tr.to, trigger: tr.trigger ?? null }).slice(0, 16);
}

export const ceilTick = (unixMs: number) => Math.ceil(unixMs / TICK_MS);

export function oneShotTick(t: TriggerSpec): number {
  return t.at_tick ?? ceilTick((t.at_unix ?? 0) * 1000);
}

const crons = new Map<string, Cron>();

/** A parsed 5-field UTC cron expression (cached); throws with croner's message when invalid. */
export function cronOf(expression: string): Cron {
  let cron = crons.get(expression);
  if (cron === undefined) {
    const fields = expression.trim().split(/\s+/);
    if (fields.length !== 5) throw new Error(`a cron expression has 5 fields (minute hour day month weekday), got ${fields.length}`);
    cron = new Cron(expression, { timezone: 'UTC', paused: true });
    if (crons.size > 1000) crons.clear();
    crons.set(expression, cron);
  }
  return cron;
}

/** First cron due tick strictly after `afterTick`, or undefined when the expression never fires again. */
export function cronNextTick(expression: string, afterTick: number): number | undefined {
  const next = cronOf(expression).nextRun(new Date(afterTick * TICK_MS));
  return next ? ceilTick(next.getTime()) : undefined;
}

export interface DueBasis {
  entered_tick: number;
  anchor_tick: number;
  /** Last due tick fired or skipped for this transition. */
  watermark: number | undefined;
}

/** The next due tick of a scheduled trigger, or undefined when it will not fire again. */
export function nextDue(t: TriggerSpec, basis: DueBasis): number | undefined {
  const base = Math.max(basis.entered_tick, basis.anchor_tick, basis.watermark ?? -Infinity);
  if (t.kind === 'one_shot') {
    const at = oneShotTick(t);
    // A one_shot whose time passed before its state was entered (or the contract resumed) is due on arrival.
    return basis.watermark !== undefined && basis.watermark >= at ? undefined : Math.max(at, basis.entered_tick, basis.anchor_tick);
  }
  if (t.kind === 'cron') return cronNextTick(t.cron!, base);
  return base + t.every_ticks!;
}

/**
 * A due fire seen at `nowTick`: after downtime every missed due tick collapses into one fire at the
 * latest of them, and the others are counted as skipped.
 */
export function collapse(t: TriggerSpec, due: number, nowTick: number): { fireDue: number; skipped: number } {
  if (nowTick <= due || t.kind === 'one_shot') return { fireDue: due, skipped: 0 };
  if (t.kind === 'cron') {
    let fireDue = due;
    let skipped = 0;
    for (let next = cronNextTick(t.cron!, due); next !== undefined && next <= nowTick && skipped < MAX_COUNTED; next = cronNextTick(t.cron!, next)) {
      fireDue = next;
      skipped++;
    }
    return { fireDue, skipped };
  }
  const every = t.every_ticks!;
  const steps = Math.floor((nowTick - due) / every);
  return { fireDue: due + steps * every, skipped: steps };
}

/** Short human text of a trigger, e.g. "every 60 ticks" or "on event reading". */
export function describeTrigger(t: TriggerSpec | undefined): string {
  if (t === undefined) return 'driven by a caller';
  switch (t.kind) {
    case 'one_shot':
      return t.at_tick !== undefined ? `once at tick ${t.at_tick}` : `once at unix ${t.at_unix}`;
    case 'every':
    case 'recurring':
      return `every ${t.every_ticks} ticks`;
    case 'cron':
      return `cron ${t.cron} (UTC)`;
    case 'on_event':
    case 'on_events':
      return `on event ${triggerEvents(t).join(' or ')}${t.machine ? ` from ${t.machine}` : ''}`;
    case 'on_aggregate': {
      const agg = t.aggregate!;
      return `${agg.fn}(${agg.field ?? t.event}) ${t.op} ${t.threshold} over ${t.within_ticks} ticks of event ${t.event}`;
    }
    default:
      return String(t.kind);
  }
}
