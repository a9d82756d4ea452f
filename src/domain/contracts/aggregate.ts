import type { TriggerSpec } from './contract.types.js';
import type { ContractEventRepository } from './contract-event-repository.js';

/** The inbox row type of an event: aggregates count per source machine and name. */
export const inboxType = (source: string, name: string) => `${source}/${name}`;

/** count, sum, avg, min or max of `field` over payloads; null when there is nothing to aggregate. */
export function aggregateOf(fn: string, field: string | undefined, payloads: ReadonlyArray<Record<string, unknown>>): number | null {
  if (fn === 'count') return payloads.length;
  const values = payloads.map((p) => p[field ?? '']).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (values.length === 0) return null;
  switch (fn) {
    case 'sum':
      return values.reduce((a, b) => a + b, 0);
    case 'avg':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'min':
      return Math.min(...values);
    case 'max':
      return Math.max(...values);
    default:
      return null;
  }
}

export function compare(op: string, a: number, b: number): boolean {
  switch (op) {
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default:
      return false;
  }
}

/**
 * An on_aggregate trigger evaluated at `nowTick` over the machine's inbox: the events of its name and
 * source in the last `within_ticks` ticks (the current one included).
 */
export async function evaluateAggregate(
  contractEvents: ContractEventRepository,
  slug: string,
  trigger: TriggerSpec,
  nowTick: number,
): Promise<{ value: number | null; holds: boolean; events: number }> {
  const rows = await contractEvents.inbox(slug, {
    types: [inboxType(trigger.machine ?? slug, trigger.event!)],
    fromTick: nowTick - trigger.within_ticks! + 1,
  });
  const value = aggregateOf(
    trigger.aggregate!.fn,
    trigger.aggregate!.field,
    rows.map((r) => r.payload),
  );
  return { value, holds: value !== null && compare(trigger.op!, value, trigger.threshold!), events: rows.length };
}
