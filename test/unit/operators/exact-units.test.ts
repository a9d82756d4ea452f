import { beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/lib/clock.js';
import type { MathEngine } from '../../../src/domain/operators/math-engine.js';
import { createOperatorsService, type OperatorsService } from '../../../src/domain/operators/operators.service.js';

// Exact values: SI 2019 (e, k), NIST SP 811 (mmHg, international foot and pound).
const E = 1.602176634e-19;
const K_B = 1.380649e-23;
const MMHG = 133.322387415;

let operators: OperatorsService;
let engine: MathEngine;

beforeAll(async () => {
  operators = createOperatorsService({ clock: createFakeClock() });
  engine = await operators.engine();
});

const value = async (id: string, inputs: Record<string, number>) => (await operators.evaluate(id, inputs)).value;

describe('mathjs units with exact SI values', () => {
  it.each([
    ['eV', E],
    ['electronvolt', E],
    ['keV', E * 1e3],
    ['MeV', E * 1e6],
    ['mmHg', MMHG],
    ['torr', 101325 / 760],
    ['kip', 4448.2216152605],
    ['psi', 4.4482216152605 / 0.0254 ** 2],
    ['hp', 550 * 0.3048 * 4.4482216152605],
    ['rd', 16.5 * 0.3048],
    ['sqrd', (16.5 * 0.3048) ** 2],
    ['sqch', (66 * 0.3048) ** 2],
    ['acre', 43560 * 0.3048 ** 2],
  ])('converts 1 %s to its exact SI value', (unit, si) => {
    expect(Math.abs(engine.toSi(1, unit) / si - 1)).toBeLessThan(1e-14);
  });

  it('leaves the units mathjs already defines exactly unchanged', () => {
    expect(engine.toSi(1, 'atm')).toBe(101325);
    expect(engine.toSi(1, 'lbf')).toBe(4.4482216152605);
    expect(engine.toSi(1, 'BTU')).toBe(1055.05585262);
  });
});

describe('operators that use eV or mmHg', () => {
  const close = (got: number, want: number) => expect(Math.abs(got / want - 1)).toBeLessThan(1e-12);

  it('MAT15 (vacancy fraction) uses the exact electronvolt', async () => {
    close(await value('MAT15', { Q_v: 0.9, T: 1357 }), Math.exp((-0.9 * E) / (K_B * 1357)));
  });

  it('ECO16 (metabolic theory) uses the exact electronvolt', async () => {
    close(await value('ECO16', { b_0: 0.1, M: 1, E_act: 0.65, T_ref: 293, T: 303 }), 0.1 * Math.exp(((0.65 * E) / K_B) * (1 / 293 - 1 / 303)));
  });

  it('KIN22 (Marcus rate) uses the exact electronvolt', async () => {
    close(await value('KIN22', { A: 1e13, lam: 1, dG: -0.5, T: 298.15 }), 1e13 * Math.exp(-((0.5 * E) ** 2) / (4 * E * K_B * 298.15)));
  });

  it('PHY21 (stroke work) uses the conventional millimetre of mercury', async () => {
    close(await value('PHY21', { SV: 70, MAP: 93, PCWP: 8 }), 70e-6 * 85 * MMHG);
  });

  it('PHY4 (vascular resistance) uses the conventional millimetre of mercury', async () => {
    // 1 dyn s / cm^5 = 1e5 Pa s / m^3.
    close(await value('PHY4', { MAP: 93, CVP: 5, CO: 5 }), (88 * MMHG) / (5e-3 / 60) / 1e5);
  });

  it('PHY5 (Laplace wall stress) uses the conventional millimetre of mercury', async () => {
    close(await value('PHY5', { P_tm: 120, r: 2.5, h_wall: 1 }), (120 * MMHG * 0.025) / (2 * 0.01) / 1000);
  });
});
