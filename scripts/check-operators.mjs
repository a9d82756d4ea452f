// Checks operator data files against docs/helpers/operators-format.md: counts, ids, duplicates,
// finite evaluation on the examples, and unit agreement through mathjs units.
// Usage: node scripts/check-operators.mjs [resources/operators/x.json ...]   (default: every file)
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { all, create } from 'mathjs';

const math = create(all);
const root = path.resolve(new URL('..', import.meta.url).pathname);
const dir = path.join(root, 'resources/operators');

const table = new Map();
for (const line of readFileSync(path.join(root, 'docs/helpers/operators-format.md'), 'utf8').split('\n')) {
  const m = /^\| ([A-D]) \| `([a-z_]+)` \| (.+?) \| `([A-Z_]+)` \| (\d+) \|$/.exec(line);
  if (m) table.set(m[2], { title: m[3], prefix: m[4], count: Number(m[5]) });
}

const CONSTANTS = {
  c0: '299792458 m/s',
  h_P: '6.62607015e-34 J s',
  hbar: '1.054571817e-34 J s',
  G_N: '6.6743e-11 m^3/(kg s^2)',
  k_B: '1.380649e-23 J/K',
  e0: '1.602176634e-19 C',
  N_A: '6.02214076e23 mol^-1',
  R_gas: '8.314462618 J/(mol K)',
  eps0: '8.8541878128e-12 F/m',
  mu0: '1.25663706212e-6 N/A^2',
  m_e: '9.1093837015e-31 kg',
  m_p: '1.67262192369e-27 kg',
  m_n: '1.67492749804e-27 kg',
  u_amu: '1.66053906660e-27 kg',
  sigma_SB: '5.670374419e-8 W/(m^2 K^4)',
  g0: '9.80665 m/s^2',
  F_far: '96485.33212 C/mol',
  a0_bohr: '5.29177210903e-11 m',
  R_inf: '10973731.568160 m^-1',
  alpha_fs: 7.2973525693e-3,
  Z0: '376.730313668 ohm',
  b_wien: '2.897771955e-3 m K',
  atm: '101325 Pa',
  AU: '1.495978707e11 m',
  M_sun: '1.98847e30 kg',
  R_earth: '6.371e6 m',
  M_earth: '5.9722e24 kg',
  H0: '2.2e-18 s^-1',
  tick_s: '0.777 s',
  alpha_k: 1e-3,
  pulse_hz: '1.287 Hz',
};
const numeric = Object.fromEntries(Object.entries(CONSTANTS).map(([k, v]) => [k, typeof v === 'number' ? v : math.unit(v).toSI().toNumber()]));
const withUnits = Object.fromEntries(Object.entries(CONSTANTS).map(([k, v]) => [k, typeof v === 'number' ? v : math.unit(v)]));

function toSiNumber(value, unit) {
  return unit ? math.unit(value, unit).toSI().toNumber() : value;
}

export function checkFile(file, seen) {
  const problems = [];
  const fail = (msg) => problems.push(`${path.basename(file)}: ${msg}`);
  let data;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return [`${path.basename(file)}: not JSON: ${err.message}`];
  }
  const key = path.basename(file, '.json');
  const plan = table.get(key);
  if (!plan) fail(`category ${key} is not in the table`);
  if (data.category !== key) fail(`category field ${data.category} != file name`);
  if (plan && data.title !== plan.title) fail(`title ${data.title} != ${plan.title}`);
  const ops = data.operators ?? [];
  if (plan && ops.length !== plan.count) fail(`has ${ops.length} operators, the plan says ${plan.count}`);
  const names = new Set();
  for (const op of ops) {
    const where = `${op.id ?? '?'}`;
    if (!/^[A-Z][A-Z0-9_]*(\.[0-9]+)?$/.test(op.id ?? '')) fail(`${where}: bad id`);
    if (seen.ids.has(op.id)) fail(`${where}: duplicate id (also in ${seen.ids.get(op.id)})`);
    seen.ids.set(op.id, key);
    if (names.has(op.name)) fail(`${where}: duplicate name ${op.name}`);
    names.add(op.name);
    for (const f of ['name', 'description', 'formula', 'expression']) if (typeof op[f] !== 'string' || !op[f]) fail(`${where}: missing ${f}`);
    if (!Array.isArray(op.inputs) || op.inputs.length < 1 || op.inputs.length > 8) {
      fail(`${where}: needs 1-8 inputs`);
      continue;
    }
    for (const inp of op.inputs) {
      if (inp.name in CONSTANTS) fail(`${where}: input ${inp.name} shadows a constant`);
      if (typeof inp.example !== 'number' || !Number.isFinite(inp.example)) fail(`${where}: input ${inp.name} needs a finite example`);
      if (inp.unit)
        try {
          math.unit(1, inp.unit);
        } catch {
          fail(`${where}: input ${inp.name} unit "${inp.unit}" is not a mathjs unit`);
        }
    }
    let code;
    try {
      code = math.compile(op.expression);
    } catch (err) {
      fail(`${where}: expression does not parse: ${err.message}`);
      continue;
    }
    const sig = `${op.expression.replace(/\s+/g, '')}|${op.inputs.map((i) => i.unit).join(',')}`;
    if (seen.expressions.has(sig)) fail(`${where}: same expression and units as ${seen.expressions.get(sig)}`);
    seen.expressions.set(sig, op.id);
    try {
      const scope = { ...numeric };
      for (const inp of op.inputs) scope[inp.name] = toSiNumber(inp.example, inp.unit);
      const v = code.evaluate(scope);
      const n = typeof v === 'number' ? v : v?.toNumber?.();
      if (typeof n !== 'number' || !Number.isFinite(n)) fail(`${where}: example evaluates to ${v}`);
    } catch (err) {
      fail(`${where}: numeric evaluation failed: ${err.message}`);
    }
    try {
      const scope = { ...withUnits };
      for (const inp of op.inputs) scope[inp.name] = inp.unit ? math.unit(inp.example, inp.unit) : inp.example;
      const v = code.evaluate(scope);
      const want = op.output?.unit ?? '';
      if (want === '') {
        const plain = typeof v === 'number' || (math.isUnit(v) && v.equalBase(math.unit(1, 'm/m')));
        if (!plain) fail(`${where}: output should be dimensionless, got ${math.isUnit(v) ? v.formatUnits() : typeof v}`);
      } else if (!math.isUnit(v) || !v.equalBase(math.unit(1, want))) {
        fail(`${where}: output unit ${math.isUnit(v) ? v.formatUnits() || '(dimensionless)' : 'none'} does not match ${want}`);
      }
    } catch (err) {
      fail(`${where}: unit evaluation failed: ${err.message}`);
    }
  }
  return problems;
}

const files =
  process.argv.slice(2).length > 0
    ? process.argv.slice(2)
    : readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => path.join(dir, f));
const seen = { ids: new Map(), expressions: new Map() };
let total = 0;
const problems = [];
for (const f of files) {
  problems.push(...checkFile(f, seen));
  try {
    total += JSON.parse(readFileSync(f, 'utf8')).operators?.length ?? 0;
  } catch {
    /* reported above */
  }
}
for (const p of problems) console.log(p);
console.log(`${files.length} files, ${total} operators, ${problems.length} problems`);
process.exitCode = problems.length > 0 ? 1 : 0;
