import { beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/lib/clock.js';
import { resourcePath } from '../../../src/lib/paths.js';
import type { MathEngine } from '../../../src/domain/operators/math-engine.js';
import { createOperatorsService, type OperatorsService } from '../../../src/domain/operators/operators.service.js';
import { REGISTRY_CONSTANTS } from '../../../src/domain/operators/registry-constants.js';
import { loadRegistry } from '../../../src/domain/operators/registry-load.js';
import { substrateAt } from '../../../src/domain/operators/substrate.js';
import { CATEGORY_PLAN, RESERVED_IDS } from './category-plan.js';

const registry = loadRegistry(resourcePath('operators'));
const plan = new Map(CATEGORY_PLAN.map((c) => [c.key, c]));
const examplesOf = (op: (typeof registry.operators)[number]) => Object.fromEntries(op.inputs.map((i) => [i.name, i.example]));

let operators: OperatorsService;
let engine: MathEngine;

beforeAll(async () => {
  operators = createOperatorsService({ clock: createFakeClock() });
  engine = await operators.engine();
});

describe('operator registry data', () => {
  it('loads every operator file present without skipping a file or an operator', () => {
    expect(registry.files.length).toBeGreaterThan(0);
    expect(registry.problems).toEqual([]);
  });

  it('has only planned categories, each with its planned title and operator count', () => {
    const wrong: string[] = [];
    for (const file of registry.files) {
      const planned = plan.get(file.category);
      if (!planned) wrong.push(`${file.category}: not in the plan`);
      else if (file.title !== planned.title) wrong.push(`${file.category}: title "${file.title}", planned "${planned.title}"`);
      else if (file.operators.length !== planned.count) wrong.push(`${file.category}: ${file.operators.length} operators, planned ${planned.count}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gives every operator a unique well-formed id with its category prefix and a unique name in its category', () => {
    const wrong: string[] = [];
    const seen = new Set<string>();
    for (const file of registry.files) {
      const names = new Set<string>();
      const prefix = plan.get(file.category)?.prefix ?? '';
      for (const op of file.operators) {
        if (!/^[A-Z][A-Z0-9_]*(\.[0-9]+)?$/.test(op.id)) wrong.push(`${op.id}: malformed id`);
        if (!op.id.startsWith(prefix) && RESERVED_IDS[op.id] !== file.category) wrong.push(`${op.id}: does not start with ${prefix}`);
        if (seen.has(op.id)) wrong.push(`${op.id}: duplicate id`);
        if (names.has(op.name)) wrong.push(`${op.id}: duplicate name "${op.name}" in ${file.category}`);
        seen.add(op.id);
        names.add(op.name);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('never has two operators with the same normalised expression and the same input units', () => {
    const bySignature = new Map<string, string>();
    const wrong: string[] = [];
    for (const op of registry.operators) {
      const signature = `${op.expression.replace(/\s+/g, '')}|${op.inputs.map((i) => i.unit).join(',')}`;
      const other = bySignature.get(signature);
      if (other) wrong.push(`${op.id} repeats ${other}`);
      bySignature.set(signature, op.id);
    }
    expect(wrong).toEqual([]);
  });

  it('declares 1 to 8 inputs with symbol names that shadow no constant, mathjs units, and examples inside their bounds', () => {
    const wrong: string[] = [];
    for (const op of registry.operators) {
      if (op.inputs.length < 1 || op.inputs.length > 8) wrong.push(`${op.id}: ${op.inputs.length} inputs`);
      for (const i of op.inputs) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(i.name)) wrong.push(`${op.id}.${i.name}: not a symbol`);
        if (i.name in REGISTRY_CONSTANTS) wrong.push(`${op.id}.${i.name}: shadows a constant`);
        if (!Number.isFinite(i.example)) wrong.push(`${op.id}.${i.name}: example is not finite`);
        if ((i.min !== undefined && i.example < i.min) || (i.max !== undefined && i.example > i.max))
          wrong.push(`${op.id}.${i.name}: example outside its bounds`);
        try {
          if (i.unit) engine.math.unit(1, i.unit);
        } catch {
          wrong.push(`${op.id}.${i.name}: unit "${i.unit}" is not a mathjs unit`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('evaluates every operator on its example inputs to a finite number through the engine', async () => {
    const wrong: string[] = [];
    for (const op of registry.operators) {
      try {
        const result = await operators.evaluate(op.id, examplesOf(op));
        if (!Number.isFinite(result.value)) wrong.push(`${op.id}: ${result.value}`);
      } catch (err) {
        wrong.push(`${op.id}: ${(err as Error).message}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('gives every formula, evaluated with mathjs units, the dimension of its declared output unit', () => {
    const wrong: string[] = [];
    for (const op of registry.operators) {
      try {
        const compiled = engine.compile(op);
        const raw = compiled.withUnits(op.inputs.map((i) => i.example));
        if (compiled.unitResultToOutput(raw) === undefined) {
          const got = engine.math.isUnit(raw) ? (raw as { formatUnits(): string }).formatUnits() || '(dimensionless)' : typeof raw;
          wrong.push(`${op.id}: gives ${got}, declares "${op.output.unit}"`);
        }
      } catch (err) {
        wrong.push(`${op.id}: ${(err as Error).message}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('gets the same example value from SI numbers as from mathjs units, to 1e-9, wherever no offset unit is involved', async () => {
    const wrong: string[] = [];
    for (const op of registry.operators) {
      const result = await operators.evaluate(op.id, examplesOf(op)).catch(() => undefined);
      if (result && result.cross_check !== null && result.cross_check > 1e-9) wrong.push(`${op.id}: relative difference ${result.cross_check}`);
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the ids the reference names in their categories, for the files present', () => {
    const present = new Set(registry.files.map((f) => f.category));
    const wrong = Object.entries(RESERVED_IDS)
      .filter(([, category]) => present.has(category))
      .filter(([id, category]) => operators.get(id)?.category !== category)
      .map(([id, category]) => `${id} missing from ${category}`);
    expect(wrong).toEqual([]);
  });

  it('defines KO42 in the data as the clock modulation R(t) that every compute applies', async () => {
    const ko42 = operators.get('KO42');
    if (!ko42) return;
    expect(ko42.inputs.map((i) => [i.name, i.unit])).toEqual([['t', 's']]);
    const at = { tick: 2_287_001_234, phase: 0.25 };
    const { t, value } = substrateAt(at);
    const fromData = engine.compile(ko42).numeric([t]) as number;
    expect(Math.abs(fromData - value)).toBeLessThan(1e-12);
    expect((await operators.evaluate('KO42', {}, { at })).value).toBe(value);
  });

  it('totals exactly 1,597 operators in 64 categories, each in one of the four groups', () => {
    expect(registry.files.length).toBe(64);
    expect(registry.operators.length).toBe(1597);
    const groups = new Set(registry.categories.map((c) => c.group));
    expect(groups).toEqual(new Set(['core_physics', 'extended_physics', 'applied_sciences', 'industry']));
  });
});
