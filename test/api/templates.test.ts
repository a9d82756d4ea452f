import { describe, expect, it } from 'vitest';
import { createTemplateCatalogue } from '../../src/domain/templates/template-catalogue.service.js';
import type { CuratedTemplate } from '../../src/domain/templates/template.types.js';
import { createFakeClock, tickStartMs } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const T0 = 2_300_000_000;
const clock = createFakeClock(tickStartMs(T0));
const catalogue = createTemplateCatalogue();
let slugN = 0;

// One server for the file (starting one per template would dominate the run); every test makes its own machines and keys.
const server = useServer({}, clock);

async function machine(isPublic = false) {
  const owner = await mintKey(server);
  const slug = `tpl-${++slugN}-${Date.now().toString(36)}`;
  await createMachine(server, owner.key, { slug, isPublic });
  return { slug, owner };
}

async function chainCount(slug: string, key: string) {
  const res = await server.call('GET', `/api/chain/${slug}/activity?limit=200`, { key });
  expect(res.status).toBe(200);
  return res.body.rows.length as number;
}

describe('contracts.listTemplates GET /api/contracts/templates', () => {
  it('lists at least 69 templates without a key, a page at a time', async () => {
    const first = await server.call('GET', '/api/contracts/templates?limit=25');
    expect(first.status).toBe(200);
    expect(first.body.total).toBeGreaterThanOrEqual(69);
    expect(first.body.templates).toHaveLength(25);
    expect(first.body.templates[0]).toMatchObject({
      id: 'scheduled-compute',
      category: 'foundations',
      category_name: 'Foundations',
      definition_name: 'scheduled_compute',
      trigger_kinds: ['every'],
    });
    const seen = new Set<string>(first.body.templates.map((t: { id: string }) => t.id));
    let cursor: string | null = first.body.next_cursor;
    while (cursor) {
      const page = await server.call('GET', `/api/contracts/templates?limit=25&cursor=${encodeURIComponent(cursor)}`);
      expect(page.status).toBe(200);
      for (const t of page.body.templates) seen.add(t.id);
      cursor = page.body.next_cursor;
    }
    expect(seen.size).toBe(first.body.total);
  });

  it('filters by category and by words, and says which categories exist when one is unknown', async () => {
    const physics = await server.call('GET', '/api/contracts/templates?category=thermo-and-information');
    expect(physics.status).toBe(200);
    expect(physics.body.templates.map((t: { id: string }) => t.id)).toEqual(expect.arrayContaining(['landauer-energy-audit', 'entropy-anomaly-detector']));
    expect(physics.body.templates.every((t: { category_name: string }) => t.category_name === 'Thermo & Information')).toBe(true);
    const found = await server.call('GET', '/api/contracts/templates?q=NM19');
    expect(found.body.templates.map((t: { id: string }) => t.id)).toEqual(['force-threshold-alarm']);
    const unknown = await server.call('GET', '/api/contracts/templates?category=alchemy');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('categories: foundations, mechanics, quantum');
    const badCursor = await server.call('GET', '/api/contracts/templates?cursor=bm9wZQ');
    expect(badCursor.status).toBe(400);
  });
});

describe('contracts.listTemplateCategories GET /api/contracts/templates/categories', () => {
  it('lists the twelve categories with display names and counts that add up to the catalogue', async () => {
    const res = await server.call('GET', '/api/contracts/templates/categories');
    expect(res.status).toBe(200);
    expect(res.body.categories.map((c: { name: string }) => c.name)).toEqual([
      'Foundations',
      'Mechanics',
      'Quantum',
      'Atomic Physics',
      'Thermo & Information',
      'Relativity',
      'Network & Comms',
      'Fluid Dynamics',
      'Operations',
      'Climate Science',
      'Medical',
      'Cryptography',
    ]);
    const total = (await server.call('GET', '/api/contracts/templates?limit=1')).body.total;
    expect(res.body.categories.reduce((sum: number, c: { count: number }) => sum + c.count, 0)).toBe(total);
  });
});

describe('contracts.getTemplate GET /api/contracts/templates/{id}', () => {
  it('reads a template with its full definition, parameters, events and worked example', async () => {
    const res = await server.call('GET', '/api/contracts/templates/force-threshold-alarm');
    expect(res.status).toBe(200);
    const t = res.body.template;
    expect(t).toMatchObject({ id: 'force-threshold-alarm', category: 'mechanics', states_count: 4, transitions_count: 4, operators: ['KO42', 'NM19'] });
    expect(t.params).toEqual([{ name: 'force_limit_n', description: expect.any(String), default: 500, unit: 'N', sets: ['defaults.force_limit_n'] }]);
    expect(t.definition.transitions[1]).toMatchObject({
      from: 'watching',
      to: 'alert',
      operator: 'NM19',
      condition: 'input.mass_kg * input.acceleration_ms2 > input.force_limit_n',
      proof_required: true,
    });
    expect(t.example.steps.at(-1)).toEqual({ transition: 'cleared', input: { acknowledged: true }, expect: 'cleared' });
  });

  it('answers 404 naming the list call for an unknown template, and 400 for a malformed id', async () => {
    const missing = await server.call('GET', '/api/contracts/templates/no-such-thing');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('GET /api/contracts/templates');
    expect((await server.call('GET', '/api/contracts/templates/Not_Kebab')).status).toBe(400);
  });
});

describe('contracts.generateDraft POST /api/contracts/generate', () => {
  it('drafts a valid definition from a description, names its template and filled parameters, and the draft deploys', async () => {
    const { slug, owner } = await machine();
    const before = await chainCount(slug, owner.key);
    const res = await server.call('POST', '/api/contracts/generate', {
      key: owner.key,
      body: { description: 'Raise an alarm when the force on the hoist exceeds 2.5 kN', slug },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true, template_id: 'force-threshold-alarm', params: { force_limit_n: 2500 } });
    expect(res.body.definition.defaults).toEqual({ force_limit_n: 2500 });
    expect(res.body.notes[0]).toContain('force-threshold-alarm');
    expect(await chainCount(slug, owner.key)).toBe(before);

    const created = await server.call('POST', `/api/chain/${slug}/contracts`, { key: owner.key, body: { definition: res.body.definition } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.contract.id;
    const base = `/api/chain/${slug}/contracts/${id}`;
    expect((await server.call('POST', `${base}/transition`, { key: owner.key, body: { to: 'watching' } })).status).toBe(200);
    const below = await server.call('POST', `${base}/transition`, { key: owner.key, body: { to: 'alert', input: { mass_kg: 200, acceleration_ms2: 9.81 } } });
    expect(below.status).toBe(400);
    expect(below.body.error.message).toContain('condition_failed');
    const above = await server.call('POST', `${base}/transition`, { key: owner.key, body: { to: 'alert', input: { mass_kg: 300, acceleration_ms2: 9.81 } } });
    expect(above.body).toMatchObject({ ok: true, new_state: 'alert' });
  });

  it('needs a key, a description of at least 3 characters, and a machine the caller can read', async () => {
    const { slug } = await machine(false);
    const stranger = await mintKey(server);
    expect((await server.call('POST', '/api/contracts/generate', { body: { description: 'heartbeat every minute' } })).status).toBe(401);
    const short = await server.call('POST', '/api/contracts/generate', { key: stranger.key, body: { description: 'x' } });
    expect(short.status).toBe(400);
    const hidden = await server.call('POST', '/api/contracts/generate', { key: stranger.key, body: { description: 'heartbeat every minute', slug } });
    expect(hidden.status).toBe(404);
    const open = await server.call('POST', '/api/contracts/generate', { key: stranger.key, body: { description: 'heartbeat every minute' } });
    expect(open.body).toMatchObject({ template_id: 'scheduled-compute', params: { every_ticks: 77 } });
  });
});

describe('contracts.deployTemplate POST /api/contracts/templates/{id}/deploy', () => {
  it('deploys with parameter values, refuses unknown parameters, and guards the machine', async () => {
    const { slug, owner } = await machine();
    const res = await server.call('POST', '/api/contracts/templates/scheduled-compute/deploy', {
      key: owner.key,
      body: { slug, params: { every_ticks: 120 } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.contract.definition.transitions[0].trigger).toEqual({ kind: 'every', every_ticks: 120 });
    expect(res.body.contract.next_fire).toBe(T0 + 120);
    const unknown = await server.call('POST', '/api/contracts/templates/scheduled-compute/deploy', {
      key: owner.key,
      body: { slug, params: { colour: 'red' } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('Unknown parameter "colour"');
    const stranger = await mintKey(server);
    expect((await server.call('POST', '/api/contracts/templates/scheduled-compute/deploy', { key: stranger.key, body: { slug } })).status).toBe(404);
    expect((await server.call('POST', '/api/contracts/templates/scheduled-compute/deploy', { body: { slug } })).status).toBe(401);
  });
});

describe('every curated template deploys and runs', () => {
  const initialOf = (t: CuratedTemplate) => Object.keys(t.definition.states).find((s) => t.definition.states[s]!.initial)!;

  it.each(catalogue.all().map((t) => [t.id, t] as const))('%s runs its worked example from a fresh deployment to its last state', async (_id, t) => {
    const { slug, owner } = await machine();
    const key = owner.key;
    const deploy = await server.call('POST', `/api/contracts/templates/${t.id}/deploy`, {
      key,
      body: { slug, ...(t.walkthrough.params ? { params: t.walkthrough.params } : {}) },
    });
    expect(deploy.status, JSON.stringify(deploy.body)).toBe(200);
    expect(deploy.body).toMatchObject({ template_id: t.id, contract: { current_state: initialOf(t), status: 'active' } });
    const base = `/api/chain/${slug}/contracts/${deploy.body.contract.id}`;

    for (const [n, step] of t.walkthrough.steps.entries()) {
      const where = `${t.id} step ${n + 1}: ${JSON.stringify(step)}`;
      if ('transition' in step) {
        const res = await server.call('POST', `${base}/transition`, { key, body: { to: step.transition, input: step.input } });
        expect(res.status, `${where} → ${JSON.stringify(res.body)}`).toBe(200);
      } else if ('event' in step) {
        const res = await server.call('POST', `/api/chain/${slug}/event`, { key, body: { type: step.event, payload: step.payload } });
        expect(res.status, where).toBe(200);
        await server.core.services.contracts.settled();
      } else {
        const res = await server.call('POST', `${base}/fire-now`, { key, body: {} });
        expect(res.status, `${where} → ${JSON.stringify(res.body)}`).toBe(200);
        expect(res.body.fired, where).toBe(true);
      }
      const got = await server.call('GET', base, { key });
      expect(got.body.contract.current_state, where).toBe(step.expect);
    }

    const { body } = await server.call('GET', base, { key });
    const rows = body.transitions as Array<{
      success: boolean;
      error: string | null;
      from_state: string;
      to_state: string;
      result: { steps?: Array<{ operator: string; evaluated: boolean }> } | null;
    }>;
    expect(
      rows.filter((r) => !r.success),
      t.id,
    ).toEqual([]);
    // Every operator of every fire really computed: the example gives its inputs or operator_inputs maps them.
    for (const row of rows) {
      for (const s of row.result?.steps ?? []) expect(s, `${t.id} ${row.from_state} → ${row.to_state} ${s.operator}`).toMatchObject({ evaluated: true });
    }
    const last = t.walkthrough.steps.at(-1)!.expect;
    const terminal = Object.keys(t.definition.states).filter((s) => t.definition.states[s]!.terminal);
    if (terminal.length > 0) expect(terminal).toContain(last);
  });
});
