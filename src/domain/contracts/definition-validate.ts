import { errors } from '../../errors.js';
import { isObject } from '../../lib/is-object.js';
import { conditionProblem, numberExpressionProblem } from './condition.js';
import type { Definition } from './contract.types.js';
import { cronOf } from './triggers.js';

/** One problem of a definition, at a path like `transitions[2].trigger.cron`. */
export interface DefinitionIssue {
  path: string;
  message: string;
}

export interface ValidateDeps {
  /** Whether an operator id exists in the registry. */
  operatorExists(id: string): boolean;
  /** Input names of an operator (KO42 has none); when absent, `operator_inputs` keys are not matched to operators. */
  operatorInputs?(id: string): readonly string[] | undefined;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const COMPARISONS = new Set(['>', '>=', '<', '<=', '==', '!=']);
const AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max']);
const KINDS = ['one_shot', 'every', 'recurring', 'cron', 'on_event', 'on_events', 'on_aggregate'];

/**
 * Checks a definition on create, edit, import and deploy, and returns it normalized (an action's
 * `kind` is accepted for `type`). Throws VALIDATION_FAILED naming the first problem's exact path, with
 * every problem in `details.issues`.
 */
export function validateDefinition(raw: unknown, deps: ValidateDeps): Definition {
  const issues = definitionIssues(raw, deps);
  if (issues.length > 0) {
    const first = issues[0]!;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw errors.validation(`Invalid contract definition: ${first.path}: ${first.message}${more}`, {
      code: 'invalid_definition',
      path: first.path,
      issues,
    });
  }
  return raw as Definition;
}

/** Every problem of a definition; empty when it is valid. Normalizes action `kind` to `type` in place. */
export function definitionIssues(raw: unknown, deps: ValidateDeps): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  if (!isObject(raw)) return [{ path: '(definition)', message: 'a definition is a JSON object' }];
  if (typeof raw.name !== 'string' || raw.name.length < 1 || raw.name.length > 255) add('name', 'give a name of 1-255 characters');
  if (!isObject(raw.states) || Object.keys(raw.states).length === 0) {
    add('states', 'give an object of states keyed by name, e.g. {"idle": {"initial": true}, "done": {"terminal": true}}');
    return issues;
  }
  const states = raw.states;
  const initial = Object.keys(states).filter((name) => isObject(states[name]) && states[name].initial === true);
  for (const [name, spec] of Object.entries(states)) {
    if (!isObject(spec)) add(`states.${name}`, 'a state is an object: {}, {"initial": true} or {"terminal": true}');
    else if (name.length > 64) add(`states.${name}`, 'a state name has at most 64 characters');
  }
  if (initial.length !== 1) add('states', `exactly one state must be initial; found ${initial.length}${initial.length ? ` (${initial.join(', ')})` : ''}`);
  if (!Array.isArray(raw.transitions)) {
    add('transitions', 'give an array of transitions (it may be empty)');
    return issues;
  }
  if (raw.transitions.length > 256) add('transitions', 'at most 256 transitions');
  raw.transitions.forEach((tr, i) => transitionIssues(tr, `transitions[${i}]`, states, deps, add));
  if (raw.defaults !== undefined && !isObject(raw.defaults)) add('defaults', 'defaults is an object of input values');
  if (raw.oracle !== undefined && !isObject(raw.oracle)) add('oracle', 'oracle is an object');
  if (raw.secrets !== undefined && !isObject(raw.secrets)) add('secrets', 'secrets is an object of write-only values, e.g. {"api_token": "..."}');
  return issues;
}

function transitionIssues(tr: unknown, at: string, states: Record<string, unknown>, deps: ValidateDeps, add: (path: string, message: string) => void): void {
  if (!isObject(tr)) return add(at, 'a transition is an object with from, to and operator');
  for (const end of ['from', 'to'] as const) {
    const name = tr[end];
    if (typeof name !== 'string') add(`${at}.${end}`, `give the ${end} state`);
    else if (!Object.hasOwn(states, name)) add(`${at}.${end}`, `"${name}" is not a state of this definition (states: ${Object.keys(states).join(', ')})`);
  }
  const ops = tr.operators !== undefined ? tr.operators : tr.operator !== undefined ? [tr.operator] : undefined;
  const opPath = tr.operators !== undefined ? `${at}.operators` : `${at}.operator`;
  if (ops === undefined) add(`${at}.operator`, 'name the operator this transition runs, e.g. "KO42"');
  else if (!Array.isArray(ops) || ops.length === 0 || ops.length > 16) add(opPath, 'operators is a list of 1-16 operator ids');
  else {
    ops.forEach((op, j) => {
      const path = tr.operators !== undefined ? `${opPath}[${j}]` : opPath;
      if (typeof op !== 'string' || op.length === 0) add(path, 'an operator id is a non-empty string');
      else if (!deps.operatorExists(op)) add(path, `no operator "${op}" in the registry; search them with GET /api/operators?q=...`);
    });
  }
  if (tr.condition !== undefined) {
    if (typeof tr.condition !== 'string' || tr.condition.length > 2000)
      add(`${at}.condition`, 'a condition is a CEL expression string of at most 2000 characters');
    else {
      const problem = conditionProblem(tr.condition);
      if (problem) add(`${at}.condition`, `does not parse as CEL: ${problem}`);
    }
  }
  if (tr.operator_inputs !== undefined) operatorInputIssues(tr.operator_inputs, `${at}.operator_inputs`, Array.isArray(ops) ? ops : [], deps, add);
  for (const flag of ['proof_required', 'auto'] as const) {
    if (tr[flag] !== undefined && typeof tr[flag] !== 'boolean') add(`${at}.${flag}`, `${flag} is true or false`);
  }
  if (tr.trigger !== undefined) triggerIssues(tr.trigger, `${at}.trigger`, add);
  for (const list of ['pre_actions', 'post_actions'] as const) {
    const actions = tr[list];
    if (actions === undefined) continue;
    if (!Array.isArray(actions) || actions.length > 16) {
      add(`${at}.${list}`, `${list} is a list of at most 16 actions`);
      continue;
    }
    actions.forEach((action, j) => actionIssues(action, `${at}.${list}[${j}]`, states, add));
  }
}

const MAX_MAPPED = 32;
const MAX_MAPPED_EXPRESSION = 500;

/** `operator_inputs`: each key an input of an operator on the transition (`name` or `ID.name`), each value a numeric CEL expression. */
function operatorInputIssues(map: unknown, at: string, ops: unknown[], deps: ValidateDeps, add: (path: string, message: string) => void): void {
  if (!isObject(map)) return add(at, 'operator_inputs is an object mapping an operator input name to a CEL expression, e.g. {"m": "input.mass_kg"}');
  const keys = Object.keys(map);
  if (keys.length === 0 || keys.length > MAX_MAPPED) add(at, `operator_inputs maps 1-${MAX_MAPPED} inputs`);
  const ids = ops.filter((op): op is string => typeof op === 'string' && op.toUpperCase() !== 'KO42');
  const inputsOf = (id: string) => deps.operatorInputs?.(id) ?? [];
  for (const key of keys.slice(0, MAX_MAPPED)) {
    const path = `${at}.${key}`;
    const expression = map[key];
    if (typeof expression !== 'string' || expression.length === 0 || expression.length > MAX_MAPPED_EXPRESSION) {
      add(path, `give a CEL expression string of 1-${MAX_MAPPED_EXPRESSION} characters, e.g. "input.rr_ms / 1000.0"`);
    } else {
      const problem = numberExpressionProblem(expression);
      if (problem) add(path, `does not parse as a numeric CEL expression: ${problem}`);
    }
    if (!deps.operatorInputs) continue;
    const dot = key.lastIndexOf('.');
    const named = dot > 0 ? ids.find((id) => id.toUpperCase() === key.slice(0, dot).toUpperCase()) : undefined;
    if (dot > 0 && named === undefined) {
      add(path, `"${key.slice(0, dot)}" is not an operator of this transition (${ids.join(', ') || 'it runs only KO42'})`);
    } else if (named !== undefined) {
      const name = key.slice(dot + 1);
      if (!inputsOf(named).includes(name)) add(path, `${named} has no input "${name}" (its inputs: ${inputsOf(named).join(', ')})`);
    } else if (!ids.some((id) => inputsOf(id).includes(key))) {
      const known = ids.map((id) => `${id}: ${inputsOf(id).join(', ')}`).join('; ');
      add(path, `"${key}" is not an input of an operator of this transition (${known || 'it runs only KO42, which takes none'})`);
    }
  }
}

function triggerIssues(t: unknown, at: string, add: (path: string, message: string) => void): void {
  if (!isObject(t)) return add(at, 'a trigger is an object with a kind');
  if (typeof t.kind !== 'string' || !KINDS.includes(t.kind)) return add(`${at}.kind`, `kind is one of ${KINDS.join(', ')}`);
  const posInt = (key: string, required: boolean) => {
    const v = t[key];
    if (v === undefined) {
      if (required) add(`${at}.${key}`, `${t.kind} needs ${key}, a positive integer`);
    } else if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || (v === 0 && key !== 'at_tick' && key !== 'at_unix')) {
      add(`${at}.${key}`, `${key} is a positive integer`);
    }
  };
  switch (t.kind) {
    case 'one_shot':
      posInt('at_tick', false);
      posInt('at_unix', false);
      if ((t.at_tick === undefined) === (t.at_unix === undefined)) add(at, 'one_shot needs exactly one of at_tick and at_unix');
      break;
    case 'every':
    case 'recurring':
      posInt('every_ticks', true);
      break;
    case 'cron':
      if (typeof t.cron !== 'string') add(`${at}.cron`, 'cron needs a 5-field expression in UTC, e.g. "0 9 * * 1-5"');
      else {
        try {
          cronOf(t.cron);
        } catch (err) {
          add(`${at}.cron`, `invalid cron expression: ${(err as Error).message}`);
        }
      }
      break;
    case 'on_events':
      if (!Array.isArray(t.events) || t.events.length === 0 || t.events.length > 32 || !t.events.every(isEventName)) {
        add(`${at}.events`, 'events is a list of 1-32 event names');
      }
      break;
    case 'on_event':
      if (!isEventName(t.event)) add(`${at}.event`, 'give the event name (1-64 characters)');
      break;
    case 'on_aggregate': {
      if (!isEventName(t.event)) add(`${at}.event`, 'give the event whose rows are aggregated');
      posInt('within_ticks', true);
      const agg = t.aggregate;
      if (!isObject(agg) || typeof agg.fn !== 'string' || !AGGREGATES.has(agg.fn)) add(`${at}.aggregate.fn`, 'fn is one of count, sum, avg, min, max');
      else if (agg.fn !== 'count' && (typeof agg.field !== 'string' || agg.field.length === 0))
        add(`${at}.aggregate.field`, `${agg.fn} needs the payload field to aggregate`);
      if (typeof t.op !== 'string' || !COMPARISONS.has(t.op)) add(`${at}.op`, 'op is one of >, >=, <, <=, ==, !=');
      if (typeof t.threshold !== 'number' || !Number.isFinite(t.threshold)) add(`${at}.threshold`, 'threshold is a number');
      break;
    }
  }
  if (t.machine !== undefined && (typeof t.machine !== 'string' || !SLUG.test(t.machine)))
    add(`${at}.machine`, 'machine is the slug of the machine whose events it listens to');
  if (t.machine !== undefined && !['on_event', 'on_events', 'on_aggregate'].includes(t.kind))
    add(`${at}.machine`, 'only event triggers listen to another machine');
}

function actionIssues(action: unknown, at: string, states: Record<string, unknown>, add: (path: string, message: string) => void): void {
  if (!isObject(action)) return add(at, 'an action is an object with a type');
  if (action.type === undefined && typeof action.kind === 'string') action.type = action.kind;
  switch (action.type) {
    case 'emit':
      if (!isEventName(action.event)) add(`${at}.event`, 'emit needs the event name (1-64 characters)');
      if (action.payload !== undefined && !isObject(action.payload)) add(`${at}.payload`, 'payload is an object');
      break;
    case 'set_state':
      if (typeof action.state !== 'string' || !Object.hasOwn(states, action.state)) add(`${at}.state`, 'set_state needs a state of this definition');
      break;
    case 'api_call':
      if (typeof action.api !== 'string' || action.api.length === 0) add(`${at}.api`, 'api_call needs the name of the external API');
      if (action.path !== undefined && typeof action.path !== 'string') add(`${at}.path`, 'path is a string');
      break;
    default:
      add(`${at}.type`, 'type is one of emit, set_state, api_call');
  }
}

function isEventName(v: unknown): v is string {
  return typeof v === 'string' && v.length >= 1 && v.length <= 64;
}
