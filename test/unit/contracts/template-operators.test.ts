import { describe, expect, it } from 'vitest';
import { runOperators, type OperatorRunDeps } from '../../../src/domain/contracts/operator-run.js';
import type { TransitionSpec } from '../../../src/domain/contracts/contract.types.js';
import { applyParams } from '../../../src/domain/contracts/template-catalogue.js';
import { isEventTrigger, isTimeTrigger, triggerEvents } from '../../../src/domain/contracts/triggers.js';
import type { NodeKeys } from '../../../src/domain/identity/node-keys.js';
import { createOperatorsService } from '../../../src/domain/operators/operators.service.js';
import { createTemplateCatalogue, operatorsOf } from '../../../src/domain/templates/template-catalogue.service.js';
import type { CuratedTemplate } from '../../../src/domain/templates/template.types.js';
import { createFakeClock } from '../../../src/lib/clock.js';

const clock = createFakeClock(1_700_000_000_000);
const operators = createOperatorsService({ clock });
const nodeKeys = { receiptKeyId: 'test', hmac: () => '0'.repeat(64) } as unknown as NodeKeys;
const deps: OperatorRunDeps = { clock, nodeKeys, operators };
const templates = createTemplateCatalogue().all();

/**
 * The scopes each transition sees in the template's worked example: the step that takes it (defaults
 * under the step's input or event payload), or, for a transition the example never takes, every value
 * the example gives.
 */
function exampleScopes(t: CuratedTemplate): Map<number, Array<Record<string, unknown>>> {
  const defaults = applyParams(t, t.walkthrough.params ?? {}).defaults ?? {};
  const transitions = t.definition.transitions;
  const scopes = new Map<number, Array<Record<string, unknown>>>();
  const everything: Record<string, unknown> = { ...defaults };
  let state = Object.keys(t.definition.states).find((s) => t.definition.states[s]!.initial)!;
  for (const step of t.walkthrough.steps) {
    const input = 'input' in step ? step.input : 'payload' in step ? step.payload : {};
    Object.assign(everything, input);
    const to = 'transition' in step ? step.transition : step.expect;
    for (const [i, tr] of transitions.entries()) {
      if (tr.from === state && tr.to === to && takes(step, tr)) scopes.set(i, [...(scopes.get(i) ?? []), { ...defaults, ...input }]);
    }
    state = step.expect;
  }
  for (const i of transitions.keys()) if (!scopes.has(i)) scopes.set(i, [everything]);
  return scopes;
}

/** Whether a worked-example step can take this transition: an event its trigger listens to, a scheduled one, or a driven one. */
function takes(step: CuratedTemplate['walkthrough']['steps'][number], tr: TransitionSpec): boolean {
  if ('event' in step) return isEventTrigger(tr.trigger) && triggerEvents(tr.trigger).includes(step.event);
  if ('fire_now' in step) return isTimeTrigger(tr.trigger);
  return true;
}

const uses = templates.flatMap((t) => {
  const scopes = exampleScopes(t);
  return t.definition.transitions.flatMap((tr, i) => (operatorsOf(tr).some((id) => id.toUpperCase() !== 'KO42') ? [{ t, i, tr, scopes: scopes.get(i)! }] : []));
});

describe('template operators on their worked examples', () => {
  it.each(templates.map((t) => ({ id: t.id, t })))('$id evaluates every operator of every transition on its example inputs', async ({ t }) => {
    for (const { i, tr, scopes } of uses.filter((u) => u.t === t)) {
      for (const scope of scopes) {
        const where = `${t.id} transitions[${i}] ${tr.from} → ${tr.to} on ${JSON.stringify(scope)}`;
        const run = await runOperators(deps, operatorsOf(tr), scope, tr.operator_inputs);
        expect(run.ok ? '' : run.error, where).toBe('');
        if (!run.ok) continue;
        for (const step of run.output.steps.slice(1)) {
          expect(step, `${where}: ${step.operator}`).toMatchObject({ evaluated: true });
          expect(Number.isFinite(step.value), `${where}: ${step.operator} = ${step.value}`).toBe(true);
        }
      }
    }
  });

  it('covers every operator use of the catalogue', () => {
    const count = uses.reduce((n, u) => n + operatorsOf(u.tr).filter((id) => id.toUpperCase() !== 'KO42').length, 0);
    // 143 before the monthly report of fuel-emissions-reporter became a KO42 reminder (it has no fuel amount).
    expect(count).toBeGreaterThanOrEqual(142);
  });
});
