import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createKernelService } from '../../src/domain/kernel/kernel.service.js';
import { createConstantsService } from '../../src/domain/constants/constants.service.js';
import { resourcePath } from '../../src/lib/paths.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

describe('kernel.get (GET /api/kernel)', () => {
  it('returns timing and physical constants, equations, operator counts, the solvers, the mandate, rules and limits without a key', async () => {
    const res = await server.call('GET', '/api/kernel');
    expect(res.status).toBe(200);
    expect(res.body.version).toMatch(/^[0-9a-f]{16}$/);
    expect(res.body.constants).toMatchObject({ tick_ms: 777, pulse_hz: 1.287, alpha: 1e-3, c: 299792458, h: 6.62607015e-34 });
    expect(res.body.equations.map((e: { key: string }) => e.key)).toEqual(expect.arrayContaining(['tick', 'phase', 'ko42', 'receipt']));
    expect(res.body.solvers).toHaveLength(32);
    expect(res.body.mandate.map((m: { step: number }) => m.step)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(res.body.rules.length).toBeGreaterThan(4);
    expect(res.body.limits.max_operators_per_compute).toBe(3);
    const { operators } = res.body;
    if (operators.available) {
      expect(operators.total).toBe(operators.categories.reduce((s: number, c: { count: number }) => s + c.count, 0));
    } else {
      expect(operators).toMatchObject({ total: 0, categories: [] });
    }
  });

  it("reports the operator registry's categories, and a new version when they change", async () => {
    const kernelWith = (count: number) =>
      createKernelService({
        constants: createConstantsService(),
        solvers: () => [],
        operators: { categories: () => ({ total: count, categories: [{ category: 'optics', name: 'Optics', count }] }) },
        limits: {},
      });
    const doc = await kernelWith(3).get();
    expect(doc.operators).toEqual({ available: true, note: null, total: 3, categories: [{ category: 'optics', name: 'Optics', count: 3 }] });
    expect((await kernelWith(4).get()).version).not.toBe(doc.version);
  });
});

describe('kernel.getPrompt (GET /api/kernel/prompt)', () => {
  it('serves resources/kernel/prompt.md as plain text', async () => {
    const res = await server.call('GET', '/api/kernel/prompt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.body).toBe(readFileSync(resourcePath('kernel', 'prompt.md'), 'utf8'));
    expect(res.body).toContain('POST /api/proof/verify');
  });
});
