import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

describe('GET /api/operators/categories (operator.listCategories)', () => {
  it('lists every loaded category with its display name, group and count, the counts adding up to the total', async () => {
    const res = await server.call('GET', '/api/operators/categories');
    expect(res.status).toBe(200);
    const { categories, total } = res.body;
    expect(categories.length).toBeGreaterThan(0);
    expect(categories.reduce((n: number, c: { count: number }) => n + c.count, 0)).toBe(total);
    const network = categories.find((c: { category: string }) => c.category === 'network_and_comms');
    expect(network).toEqual({ category: 'network_and_comms', name: 'Network and Comms', group: 'industry', count: 22 });
  });
});

describe('GET /api/operators (operator.list)', () => {
  it('ranks an exact id match first when searching by text', async () => {
    const res = await server.call('GET', '/api/operators?q=nm19');
    expect(res.status).toBe(200);
    expect(res.body.operators[0]).toMatchObject({ id: 'NM19', name: "Newton's second law", category: 'newtonian_mechanics', tier: 'core' });
  });

  it('requires every word of the query to match somewhere in id, name, formula or description', async () => {
    const res = await server.call('GET', '/api/operators?q=black%20scholes%20put');
    expect(res.status).toBe(200);
    expect(res.body.operators.map((o: { id: string }) => o.id)).toContain('FIN7');
    for (const op of res.body.operators) expect(`${op.name} ${op.formula}`.toLowerCase()).toMatch(/black|put/);
  });

  it('filters by category and by a comma-separated list of ids in any case', async () => {
    const aero = await server.call('GET', '/api/operators?category=aerospace&limit=100');
    expect(aero.body.total).toBe(30);
    expect(aero.body.operators.every((o: { category: string; id: string }) => o.category === 'aerospace' && o.id.startsWith('AERO'))).toBe(true);
    const ids = await server.call('GET', '/api/operators?id=crypto_ecc,NET_CLUSTERING,NOPE1');
    expect(ids.body.operators.map((o: { id: string }) => o.id).sort()).toEqual(['CRYPTO_ECC', 'NET_CLUSTERING']);
  });

  it('pages through a category with next_cursor without repeating or missing an operator', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { operators: Array<{ id: string }>; next_cursor: string | null; total: number } } = await server.call(
        'GET',
        `/api/operators?category=network_and_comms&limit=10${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...res.body.operators.map((o) => o.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(22);
    expect(new Set(seen).size).toBe(22);
    expect(seen).toContain('NET_CLUSTERING');
  });

  it('answers 404 for an unknown category and 400 for a bad cursor or limit', async () => {
    const category = await server.call('GET', '/api/operators?category=astrology');
    expect(category.status).toBe(404);
    expect(category.body.error.message).toContain('/api/operators/categories');
    expect((await server.call('GET', '/api/operators?cursor=bm90LWEtY3Vyc29y')).status).toBe(400);
    expect((await server.call('GET', '/api/operators?limit=0')).status).toBe(400);
    expect((await server.call('GET', '/api/operators?limit=many')).status).toBe(400);
  });

  it('returns an empty page, not an error, when nothing matches', async () => {
    const res = await server.call('GET', '/api/operators?q=qwertyuiop');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 0, operators: [], next_cursor: null });
  });
});

describe('GET /api/operators/{id} (operator.get)', () => {
  it('reads an operator with its expression, units, bounds and example inputs', async () => {
    const res = await server.call('GET', '/api/operators/NM19');
    expect(res.status).toBe(200);
    expect(res.body.operator).toMatchObject({
      id: 'NM19',
      expression: 'm * a',
      output: { name: 'F', unit: 'N' },
      example_inputs: { m: 2, a: 9.81 },
      proof_required: true,
    });
    expect(res.body.operator.inputs[0]).toMatchObject({ name: 'm', unit: 'kg', min: 0, max: null });
  });

  it('reads the special ids with an underscore or a dotted sub-id', async () => {
    const ecc = await server.call('GET', '/api/operators/CRYPTO_ECC');
    expect(ecc.status).toBe(200);
    expect(ecc.body.operator.category).toBe('cryptography');
    const sub = await server.call('GET', '/api/operators/KO42.1');
    expect(sub.status).toBe(200);
    expect(sub.body.operator.inputs.map((i: { name: string }) => i.name)).toEqual(['t', 'phi0']);
  });

  it('answers 404 naming the search endpoint for an unknown id and 400 for a malformed one', async () => {
    const missing = await server.call('GET', '/api/operators/ZZ999');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('GET /api/operators?q=');
    const malformed = await server.call('GET', '/api/operators/nm-19');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('VALIDATION_FAILED');
  });
});
