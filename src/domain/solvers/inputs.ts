import { errors } from '../../errors.js';
import { RESERVED_NAMES } from './numeric/expr.js';
import type { Args, InputSpec } from './solver-def.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;
/**
 * Most elements a matrix input may have, whatever its declared row count: guards every solver against
 * inputs that would hold the event loop for minutes.
 */
export const MAX_ELEMENTS = 250_000;

type Where = 'input' | 'option';

/**
 * Checks `given` against the declared specs and applies defaults. Missing, unknown or mistyped values
 * are 400 VALIDATION_FAILED; values outside their declared bounds are 422 UNPROCESSABLE. Messages name
 * the input, its unit and its bounds so the caller can fix the call.
 */
export function resolveArgs(specs: InputSpec[], given: Record<string, unknown> | undefined, where: Where, solverId: string): Args {
  const values: Record<string, unknown> = {};
  const source = given ?? {};
  const known = new Set(specs.map((s) => s.name));
  for (const key of Object.keys(source).sort()) {
    if (!known.has(key)) {
      const list = specs.length > 0 ? specs.map((s) => s.name).join(', ') : 'none';
      throw errors.validation(`Unknown ${where} "${key}" for solver ${solverId}; it accepts: ${list}`, { [where]: key });
    }
  }
  for (const spec of specs) {
    const value = source[spec.name];
    if (value === undefined || value === null) {
      if (spec.default !== undefined) values[spec.name] = spec.default;
      else if (spec.required) {
        throw errors.validation(`Missing ${where} "${spec.name}" for solver ${solverId}: ${describe(spec)}`, { [where]: spec.name });
      }
      continue;
    }
    check(spec, value, where);
    values[spec.name] = value;
  }
  return argsOf(values);
}

function describe(spec: InputSpec): string {
  const unit = spec.unit ? ` in ${spec.unit}` : '';
  return `${spec.description} (${spec.type}${unit}${bounds(spec)})`;
}

function bounds(spec: InputSpec): string {
  if (spec.min !== null && spec.max !== null) return `, ${spec.min} to ${spec.max}`;
  if (spec.min !== null) return `, at least ${spec.min}`;
  if (spec.max !== null) return `, at most ${spec.max}`;
  return '';
}

function check(spec: InputSpec, value: unknown, where: Where): void {
  const wrong = (expected: string): never => {
    throw errors.validation(`The ${where} "${spec.name}" must be ${expected}; got ${kindOf(value)}`, { [where]: spec.name });
  };
  const bounded = spec.min !== null || spec.max !== null;
  // `at` names the element only once one is out of range: a 400×400 matrix has 160,000 of them.
  const range = (x: number, at: () => string = () => ''): void => {
    if ((spec.min !== null && x < spec.min) || (spec.max !== null && x > spec.max)) {
      const unit = spec.unit ? ` ${spec.unit}` : '';
      throw errors.unprocessable(`The ${where} "${spec.name}"${at()} is ${x}${unit}, outside its valid range${bounds(spec).replace(/^, /, ' ')}${unit}`, {
        [where]: spec.name,
        value: x,
        min: spec.min,
        max: spec.max,
      });
    }
  };
  const count = (n: number, what: string): void => {
    if ((spec.min_items !== undefined && n < spec.min_items) || (spec.max_items !== undefined && n > spec.max_items)) {
      throw errors.unprocessable(`The ${where} "${spec.name}" has ${n} ${what}; it needs ${spec.min_items ?? 0} to ${spec.max_items ?? 'any number of'}`, {
        [where]: spec.name,
        count: n,
      });
    }
  };
  switch (spec.type) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) wrong('a finite number');
      return range(value as number);
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) wrong('an integer');
      return range(value as number);
    case 'boolean':
      if (typeof value !== 'boolean') wrong('true or false');
      return;
    case 'string':
      if (typeof value !== 'string') wrong('a string');
      if (spec.enum && !spec.enum.includes(value as string)) wrong(`one of ${spec.enum.map((e) => `"${e}"`).join(', ')}`);
      if ((value as string).length > 4000) wrong('at most 4000 characters');
      return;
    case 'vector': {
      if (!Array.isArray(value) || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) wrong('an array of finite numbers');
      const v = value as number[];
      count(v.length, 'elements');
      if (bounded) v.forEach((x, i) => range(x, () => `[${i}]`));
      return;
    }
    case 'matrix': {
      const rows = value as unknown[];
      if (!Array.isArray(rows) || !rows.every(Array.isArray)) wrong('an array of rows (arrays of numbers)');
      count(rows.length, 'rows');
      if (rows.length === 0) wrong('a matrix with at least one row');
      const width = (rows[0] as unknown[]).length;
      if (width === 0) wrong('a matrix with at least one column');
      for (const row of rows as unknown[][]) {
        if (row.length !== width) wrong(`a rectangular matrix (every row ${width} numbers long)`);
        if (!row.every((x) => typeof x === 'number' && Number.isFinite(x))) wrong('a matrix of finite numbers');
      }
      if (rows.length * width > MAX_ELEMENTS) wrong(`a matrix of at most ${MAX_ELEMENTS} elements`);
      if (bounded) (rows as number[][]).forEach((row, i) => row.forEach((x, j) => range(x, () => `[${i}][${j}]`)));
      return;
    }
    case 'list':
      if (!Array.isArray(value)) wrong('an array');
      count((value as unknown[]).length, 'items');
      return;
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) wrong('an object of named numbers');
      for (const [k, x] of Object.entries(value as Record<string, unknown>)) {
        if (!NAME.test(k) || RESERVED_NAMES.has(k)) {
          throw errors.validation(`The ${where} "${spec.name}" has a bad name "${k}": use letters, digits and "_", not a function or constant name`, {
            [where]: spec.name,
          });
        }
        if (typeof x !== 'number' || !Number.isFinite(x)) wrong(`an object whose values are finite numbers ("${k}" is not)`);
      }
      return;
    }
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `the number ${value}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}

function argsOf(values: Record<string, unknown>): Args {
  const get = (name: string) => values[name];
  return {
    num: (n) => get(n) as number,
    int: (n) => get(n) as number,
    bool: (n) => get(n) as boolean,
    str: (n) => get(n) as string,
    vec: (n) => get(n) as number[],
    mat: (n) => get(n) as number[][],
    list: <T>(n: string) => get(n) as T[],
    obj: (n) => (get(n) ?? {}) as Record<string, number>,
    has: (n) => get(n) !== undefined,
    raw: values,
  };
}

/** Checks a user-chosen variable name (ODE states, function arguments). */
export function checkName(input: string, name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name) || RESERVED_NAMES.has(name)) {
    throw errors.validation(`Invalid input "${input}": "${String(name)}" is not a usable name (letters, digits and "_", not a function or constant name)`, {
      input,
    });
  }
  return name;
}
