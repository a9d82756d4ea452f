import { beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/lib/clock.js';
import { createOperatorsService, type OperatorsService } from '../../../src/domain/operators/operators.service.js';

// CODATA 2018 / SI 2019; m_H = 1.00782503223 u.
const K_B = 1.380649e-23;
const G = 6.6743e-11;
const M_H = 1.00782503223 * 1.6605390666e-27;

let operators: OperatorsService;
beforeAll(() => {
  operators = createOperatorsService({ clock: createFakeClock() });
});

const close = (got: number, want: number) => expect(Math.abs(got / want - 1)).toBeLessThan(1e-9);

describe('operators whose text and computation were made to agree', () => {
  it('AST8 computes the Jeans wavelength sqrt(pi k T / (G mu m_H rho)) its description promises', async () => {
    const { value } = await operators.evaluate('AST8', { T: 10, mu: 2.33, rho: 3.9e-17 });
    close(value, Math.sqrt((Math.PI * K_B * 10) / (G * 2.33 * M_H * 3.9e-17)));
    const op = operators.describe('AST8').operator;
    expect(op.formula).toBe('λ_J = √(π k_B T / (G μ m_H ρ))');
    expect(op.description).toMatch(/wavelength/);
  });

  it('AST8 is about 1.62 times the virial Jeans radius, not equal to it', async () => {
    const { value } = await operators.evaluate('AST8', { T: 10, mu: 2.33, rho: 3.9e-17 });
    const virial = Math.sqrt((15 * K_B * 10) / (4 * Math.PI * G * 2.33 * M_H * 3.9e-17));
    expect(value / virial).toBeCloseTo(Math.sqrt((4 * Math.PI ** 2) / 15), 9);
  });

  it('HYD5 gives no runoff while the rainfall is within the initial abstraction 0.2S', async () => {
    expect((await operators.evaluate('HYD5', { P: 10, S_r: 63.5 })).value).toBe(0);
    expect((await operators.evaluate('HYD5', { P: 12.6, S_r: 63.5 })).value).toBe(0);
  });

  it('HYD5 gives (P - 0.2S)^2 / (P + 0.8S) above the initial abstraction', async () => {
    const { value, unit } = await operators.evaluate('HYD5', { P: 80, S_r: 63.5 });
    expect(unit).toBe('m');
    close(value, (80 - 12.7) ** 2 / (80 + 50.8) / 1000);
  });

  it('CS7 says in its formula that it answers in decibels, as it computes', async () => {
    const { value } = await operators.evaluate('CS7', { eta: 2 });
    close(value, 10 * Math.log10(3 / 2));
    expect(operators.describe('CS7').operator.formula).toMatch(/10·log₁₀\(.*\) dB$/);
  });

  it("NRG18 is named for Tremblay's 2007 model, whose polarisation term is a voltage", async () => {
    const op = operators.describe('NRG18').operator;
    expect(op.name).toBe('Tremblay battery discharge model');
    expect(op.description).toMatch(/Tremblay.*2007/);
    const { value } = await operators.evaluate('NRG18', { E0: 12.6, K: 0.05, Q_b: 100, I: 10, t: 5, R: 0.01 });
    close(value, 12.6 - (0.05 * 100) / (100 - 50) - 0.1);
  });
});
