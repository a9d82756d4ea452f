import pg from 'pg';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { migrate, MIGRATIONS } from '../../src/storage/postgres/migrations.js';
import { walkBudget } from '../../src/storage/postgres/pg-doc-find.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import { tablesIn } from '../../src/storage/postgres/sql.js';
import type { Store } from '../../src/storage/port.js';
import { databaseUrl, dropSchema, makePostgresHarness, SKIP_REASON, uniqueSchema } from './postgres-harness.js';
import { freshStore } from './store-harness.js';

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

function rawPool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl!, max: 4 });
  onTestFinished(() => pool.end());
  return pool;
}

/** Rows of the docs table a plan read: what its scans returned plus what their filters threw away. */
function docsRowsIn(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'docs'
      ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + docsRowsIn(child), 0);
}

/**
 * Runs `work` with every statement the store's connections send recorded, then sends them again, in order
 * on one connection (transactions and their SET LOCAL too), each SELECT under EXPLAIN ANALYZE: how many
 * docs rows each SELECT read, counted by the database, not by a clock.
 */
async function docsRowsRead<T>(pool: pg.Pool, work: () => Promise<T>): Promise<{ result: T; rows: number; each: number[] }> {
  const sent: Array<{ text: string; values: unknown[] }> = [];
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args as [string | { text?: string; values?: unknown[] }, unknown];
    const text = typeof first === 'string' ? first : first.text;
    const values = typeof first === 'string' ? (Array.isArray(second) ? second : []) : (first.values ?? []);
    if (text !== undefined) sent.push({ text, values });
    return original.apply(this, args);
  } as never);
  let result: T;
  try {
    result = await work();
  } finally {
    vi.restoreAllMocks();
  }
  const each: number[] = [];
  const client = await pool.connect();
  try {
    for (const s of sent) {
      if (!/^\s*SELECT/i.test(s.text)) {
        await client.query(s.text, s.values);
        continue;
      }
      const { rows: plan } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${s.text}`, s.values);
      each.push(docsRowsIn(plan[0]!['QUERY PLAN'][0]!.Plan));
    }
  } finally {
    client.release();
  }
  return { result, rows: each.reduce((a, b) => a + b, 0), each };
}

/** 5,000 machines (every other one public, owners u0..u499) and as many keys, inserted in one statement: no statistics yet. */
async function fill(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(
    `INSERT INTO "${schema}".docs (collection, id, body)
     SELECT c, c || n, json_build_object('slug', c || n, 'owner', 'u' || (n % 500), 'is_public', n % 2 = 0, 'n', n)
     FROM generate_series(1, 5000) AS n, unnest(ARRAY['machines', 'keys']) AS c`,
  );
}

async function postgres() {
  return (await freshStore(() => makePostgresHarness())) as Awaited<ReturnType<typeof makePostgresHarness>>;
}

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('postgres: what finds and counts read', () => {
  async function filled(): Promise<{ store: Store; pool: pg.Pool }> {
    const { store, schema } = await postgres();
    const pool = rawPool();
    await fill(pool, schema);
    return { store, pool };
  }

  it('reads about a page for a page of a common value, not every match (2,500 here)', async () => {
    const { store, pool } = await filled();
    const { result, rows } = await docsRowsRead(pool, () => store.docs.find<{ n: number }>('machines', { is_public: true }, { limit: 3 }));
    expect(result.items.map((m) => m.n)).toEqual([2, 4, 6]);
    expect(rows).toBeLessThan(20);
    const newest = await docsRowsRead(pool, () => store.docs.find<{ n: number }>('machines', { is_public: true }, { limit: 3, newestFirst: true }));
    expect(newest.result.items.map((m) => m.n)).toEqual([5000, 4998, 4996]);
    expect(newest.rows).toBeLessThan(20);
  });

  it('walks only its budget for a value too rare to fill the page there, then asks the field index', async () => {
    const { store, pool } = await filled();
    const { result, each } = await docsRowsRead(pool, () => store.docs.find<{ n: number }>('machines', { owner: 'u7' }, { limit: 3 }));
    expect(result.items.map((m) => m.n)).toEqual([7, 507, 1007]);
    expect(result.next).toBeDefined();
    // The walk, then the index from where it stopped (how the planner reads that one is its choice).
    expect(each).toHaveLength(2);
    expect(each[0]).toBe(walkBudget(4));
    const rest = await store.docs.find<{ n: number }>('machines', { owner: 'u7' }, { after: result.next! });
    expect(rest.items.map((m) => m.n)).toEqual([1507, 2007, 2507, 3007, 3507, 4007, 4507]);
  });

  it('walks in order even when the planner would rather sort the collection (no limit, no statistics)', async () => {
    const { store, pool } = await filled();
    const { result, each } = await docsRowsRead(pool, () => store.docs.find<{ n: number }>('machines', { owner: 'u7' }));
    expect(result.items.map((m) => m.n)).toEqual([7, 507, 1007, 1507, 2007, 2507, 3007, 3507, 4007, 4507]);
    expect(each[0]).toBe(walkBudget(null));
  });

  it('counts a counted field from its counters, reading no document', async () => {
    const { store, pool } = await filled();
    const { result, rows } = await docsRowsRead(pool, () => store.docs.count('machines', { is_public: true }));
    expect(result).toBe(2500);
    expect(rows).toBe(0);
    expect(await store.docs.count('machines', { is_public: false })).toBe(2500);
    expect(await store.docs.count('keys', { is_public: true })).toBe(2500);
    expect(await store.docs.count('machines', { owner: 'u7' })).toBe(10);
    expect(await store.docs.count('machines', { owner: 'u7', is_public: false })).toBe(10);
  });

  it('counts a whole collection from its totals, reading no document', async () => {
    const { store, pool } = await filled();
    const { result, rows } = await docsRowsRead(pool, () => store.docs.count('machines'));
    expect(result).toBe(5000);
    expect(rows).toBe(0);
    expect(await store.docs.count('keys')).toBe(5000);
    expect(await store.docs.count('nothing-here')).toBe(0);
  });
});

describe.skipIf(databaseUrl === undefined)('postgres: document counters', () => {
  /** What the counters must say: the documents counted one by one. */
  async function truth(pool: pg.Pool, schema: string, collection: string, field: string, value: unknown): Promise<number> {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}".docs WHERE collection = $1 AND body::jsonb -> $2 = $3::jsonb`,
      [collection, field, JSON.stringify(value)],
    );
    return rows[0]!.n;
  }

  it('stay exact through inserts, puts, updates and deletes made at once by two stores', async () => {
    const { store, open, schema } = await postgres();
    const other = await open();
    const pool = rawPool();
    const stores = [store, other];
    await Promise.all(
      Array.from({ length: 120 }, async (_, n) => {
        const s = stores[n % 2]!;
        const id = `m${n % 40}`;
        switch (n % 6) {
          case 0:
            return s.docs.put('machines', id, { is_public: n % 4 === 0, status: 'active' });
          case 1:
            return s.docs.update<{ is_public: boolean; status: string }>('machines', id, (m) => ({
              status: 'paused',
              ...m,
              is_public: !(m?.is_public ?? false),
            }));
          case 2:
            return s.docs.insert('machines', `new${n}`, { is_public: true, status: n % 4 === 0 ? 'archived' : 'active' });
          case 3:
            return s.docs.deleteIf<{ is_public: boolean }>('machines', id, (m) => m.is_public);
          case 4:
            return s.docs.put('machines', id, { status: 'archived' });
          default:
            return s.docs.delete('machines', `new${n - 3}`);
        }
      }),
    );
    for (const [field, value] of [
      ['is_public', true],
      ['is_public', false],
      ['status', 'active'],
      ['status', 'paused'],
      ['status', 'archived'],
    ] as const) {
      expect(await store.docs.count('machines', { [field]: value })).toBe(await truth(pool, schema, 'machines', field, value));
    }
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".docs WHERE collection = 'machines'`);
    expect(await store.docs.count('machines')).toBe(rows[0]!.n);
  });

  it('are filled from the stored documents when a schema made by an older server is migrated', async () => {
    const schema = uniqueSchema();
    onTestFinished(() => dropSchema(schema));
    const pool = rawPool();
    await migrate(
      pool,
      tablesIn(schema),
      MIGRATIONS.filter((m) => m.version < 5),
    );
    await fill(pool, schema);
    await pool.query(`DELETE FROM "${schema}".docs WHERE collection = 'machines' AND id IN ('machines2', 'machines3')`);
    const store = createPostgresStore({ connectionString: databaseUrl!, schema });
    onTestFinished(() => store.close());
    await store.open();
    expect(await store.docs.count('machines', { is_public: true })).toBe(2499);
    expect(await store.docs.count('machines', { is_public: false })).toBe(2499);
    await store.docs.put('machines', 'machines4', { is_public: false });
    expect(await store.docs.count('machines', { is_public: true })).toBe(2498);
    expect(await store.docs.count('machines')).toBe(4998);
    await store.docs.insert('machines', 'one-more', { is_public: true });
    await store.docs.delete('keys', 'keys7');
    expect(await store.docs.count('machines')).toBe(4999);
    expect(await store.docs.count('keys')).toBe(4999);
  });
});
