import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrate, MIGRATIONS, ORDERED_FIELDS, ORDERED_FIELDS_4 } from '../../src/storage/postgres/migrations.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres.store.js';
import { tablesIn } from '../../src/storage/postgres/sql.js';
import { LastOfTypeMovedError, type LogRow } from '../../src/storage/port.js';
import { chainLink, expectUnbrokenChain, type ChainRow } from './log.contract.js';
import { databaseUrl, dropSchema, makePostgresHarness, SKIP_REASON, uniqueSchema } from './postgres-harness.js';
import { runStoreContract } from './store.contract.js';
import { freshStore } from './store-harness.js';

interface Counter {
  n: number;
}

async function postgres() {
  return (await freshStore(() => makePostgresHarness())) as Awaited<ReturnType<typeof makePostgresHarness>>;
}

/** A pool of its own on the test database, ended when the test finishes. */
function rawPool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl!, max: 4 });
  onTestFinished(() => pool.end());
  return pool;
}

if (databaseUrl === undefined) console.warn(SKIP_REASON);

describe.skipIf(databaseUrl === undefined)('postgres', () => {
  runStoreContract('postgres', () => makePostgresHarness());
});

describe.skipIf(databaseUrl === undefined)('postgres: several processes on one database', () => {
  it('keeps one stream a single unbroken chain when two stores append to it at once', async () => {
    const { store, open } = await postgres();
    const other = await open();
    const appends = Array.from({ length: 240 }, (_, n) =>
      (n % 2 === 0 ? store : other).logs.append<ChainRow>('chain/shared', (head, seq) => chainLink(head, seq, n)),
    );
    const rows = await Promise.all(appends);
    expect(new Set(rows.map((row) => row.seq)).size).toBe(240);
    const stored = await other.logs.read<ChainRow>('chain/shared');
    expect(stored).toHaveLength(240);
    expectUnbrokenChain(stored);
    expect(stored.map((row) => row.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 240 }, (_, n) => n));
  });

  it('builds on the row another store appended since this store last wrote to the stream', async () => {
    const { store, open } = await postgres();
    const other = await open();
    for (let n = 0; n < 6; n++) {
      await (n % 3 === 0 ? store : other).logs.append<ChainRow>('audit', (head, seq) => chainLink(head, seq, n));
    }
    expectUnbrokenChain(await store.logs.read<ChainRow>('audit'));
  });

  it('applies every one of 100 concurrent updates of one record made through two stores', async () => {
    const { store, open } = await postgres();
    const other = await open();
    await store.docs.insert('counters', 'c', { n: 0 });
    const increment = (current: Counter | undefined): Counter => ({ n: (current?.n ?? 0) + 1 });
    await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? store : other).docs.update('counters', 'c', increment)));
    expect(await other.docs.get('counters', 'c')).toEqual({ n: 100 });
  });

  it('creates a missing record once when two stores update it at the same time, and applies every update', async () => {
    const { store, open } = await postgres();
    const other = await open();
    const increment = (current: Counter | undefined): Counter => ({ n: (current?.n ?? 0) + 1 });
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? store : other).docs.update('counters', 'new', increment)));
    expect(await store.docs.get('counters', 'new')).toEqual({ n: 40 });
    expect(await store.docs.count('counters')).toBe(1);
  });

  it('sees documents written by another store at once', async () => {
    const { store, open } = await postgres();
    const other = await open();
    await store.docs.put('machines', 'm', { n: 1 });
    expect(await other.docs.get('machines', 'm')).toEqual({ n: 1 });
    await other.logs.append('audit', () => ({ tick: 1, type: 'x' }));
    expect(await store.logs.count('audit')).toBe(1);
    expect(await store.logs.streams()).toEqual(['audit']);
  });
});

describe.skipIf(databaseUrl === undefined)('postgres: appends', () => {
  it('rejects only the append whose build throws and commits the others queued with it', async () => {
    const { store } = await postgres();
    const settled = await Promise.allSettled(
      Array.from({ length: 30 }, (_, n) =>
        store.logs.append<ChainRow>('audit', (head, seq) => {
          if (n % 10 === 5) throw new Error(`refused ${n}`);
          return chainLink(head, seq, n);
        }),
      ),
    );
    expect(settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason.message)).toEqual([
      'refused 5',
      'refused 15',
      'refused 25',
    ]);
    expect(await store.logs.count('audit')).toBe(27);
    expectUnbrokenChain(await store.logs.read<ChainRow>('audit'));
  });

  it('refuses a row without a finite tick or a string type and lists no stream for it', async () => {
    const { store } = await postgres();
    await expect(store.logs.append('audit', () => ({ tick: Number.NaN, type: 'x' }))).rejects.toThrow(/tick must be a finite number/);
    await expect(store.logs.append('audit', () => ({ tick: 1, type: 7 as unknown as string }))).rejects.toThrow(/type must be a string/);
    await expect(store.logs.append('', () => ({ tick: 1, type: 'x' }))).rejects.toThrow(/non-empty/);
    expect(await store.logs.streams()).toEqual([]);
    expect(await store.logs.count('audit')).toBe(0);
  });

  it('keeps the rows already committed when a later batch fails to commit', async () => {
    const { store, schema } = await postgres();
    await store.logs.append('audit', () => ({ tick: 0, type: 'x' }));
    const pool = rawPool();
    // A conflicting row makes the next batch's insert fail, as a broken disk or constraint would.
    await pool.query(`INSERT INTO "${schema}".log_rows (stream, seq, tick, type, body) VALUES ('audit', 1, 0, 'x', '{}')`);
    await expect(store.logs.append('audit', () => ({ tick: 1, type: 'y' }))).rejects.toThrow(/duplicate key/);
    expect(await store.logs.count('audit')).toBe(1);
  });

  /** Appends a chain row whose build appends its companion row to `side` (as chain rows queue their payload rows). */
  function appendPair(store: Awaited<ReturnType<typeof postgres>>['store'], n: number, side = 'side') {
    let companion: Promise<LogRow> | undefined;
    const main = store.logs.append<ChainRow>('main', (head, seq) => {
      companion = store.logs.append(side, () => ({ tick: seq, type: 'companion', of: seq, n }));
      return chainLink(head, seq, n);
    });
    return main.then(async (row) => ({ row, companion: (await companion!) as LogRow & { of: number; n: number } }));
  }

  it('stores a row appended from inside another stream build in the same order and transaction as that row', async () => {
    const { store, open } = await postgres();
    const other = await open();
    const pairs = await Promise.all(Array.from({ length: 120 }, (_, n) => appendPair(n % 3 === 0 ? other : store, n)));
    for (const { row, companion } of pairs) expect([companion.of, companion.n]).toEqual([row.seq, row.n]);
    expectUnbrokenChain(await store.logs.read<ChainRow>('main'));
    const side = await store.logs.read<LogRow & { of: number }>('side');
    // In chain order, whichever store appended them.
    expect(side.map((r) => r.of)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    expect(side.map((r) => r.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i));
  });

  it('stores neither row of a pair when their transaction fails, and both of the next pair', async () => {
    const { store, schema } = await postgres();
    await appendPair(store, 0);
    const pool = rawPool();
    // The companion's next seq is taken: the one transaction writing both rows fails.
    await pool.query(`INSERT INTO "${schema}".log_rows (stream, seq, tick, type, body) VALUES ('side', 1, 0, 'x', '{}')`);
    const failed = appendPair(store, 1);
    await expect(failed).rejects.toThrow(/duplicate key/);
    expect(await store.logs.count('main')).toBe(1);
    expect(await store.logs.count('side')).toBe(1);
    await pool.query(`DELETE FROM "${schema}".log_rows WHERE stream = 'side' AND seq = 1`);
    const next = await appendPair(store, 2);
    expect([next.row.seq, next.companion.seq, next.companion.of]).toEqual([1, 1, 1]);
    expectUnbrokenChain(await store.logs.read<ChainRow>('main'));
  });

  it('inside a lock builds on the head it remembers, then on the real one once another store moved it, and checks expectations either way', async () => {
    const { store, open } = await postgres();
    const other = await open();
    const seen: Array<number | undefined> = [];
    const append = (target: typeof store, n: number, expect?: { type: string; lastSeq: number }, type = 'link') =>
      target.locks.run('writer', () =>
        target.logs.append<ChainRow>('locked', (head, seq) => (seen.push(head?.n), { ...chainLink(head, seq, n), type }), expect),
      );
    await append(store, 0, { type: 'link', lastSeq: -1 });
    // Remembered from its own commit: built once, on that head.
    await append(store, 1, { type: 'link', lastSeq: 0 });
    await append(store, 2, undefined, 'other');
    expect(seen).toEqual([undefined, 0, 1]);
    // On the remembered head an expectation that no longer holds (a `link` row came after seq 0) is
    // refused in the same statement: the build ran once, on that head, and nothing was written.
    await expect(append(store, 3, { type: 'link', lastSeq: 0 })).rejects.toBeInstanceOf(LastOfTypeMovedError);
    expect(seen).toEqual([undefined, 0, 1, 2]);
    await append(other, 3, { type: 'link', lastSeq: 1 });
    // Moved by the other store: the remembered head is refused in the database and the build runs again on the real one.
    const row = await append(store, 4, { type: 'link', lastSeq: 3 });
    expect(seen).toEqual([undefined, 0, 1, 2, 2, 2, 3]);
    expect(row.seq).toBe(4);
    expectUnbrokenChain(await store.logs.read<ChainRow>('locked'));
    expect((await other.logs.read<ChainRow>('locked')).map((r) => [r.n, r.type])).toEqual([
      [0, 'link'],
      [1, 'link'],
      [2, 'other'],
      [3, 'link'],
      [4, 'link'],
    ]);
  });

  it('judges a build on the real head, not on the one this store remembers, once another store wrote', async () => {
    const { store, open } = await postgres();
    const other = await open();
    await appendPair(store, 0);
    await appendPair(other, 1);
    // `store` remembers n=0 as the head: its first run of the build sees that, and is discarded.
    const companions: Array<Promise<LogRow>> = [];
    const seen: Array<number | undefined> = [];
    const row = await store.logs.append<ChainRow>('main', (head, seq) => {
      seen.push(head?.n);
      companions.push(store.logs.append('side', () => ({ tick: seq, type: 'companion', of: seq, n: 2 })));
      return chainLink(head, seq, 2);
    });
    expect(seen).toEqual([0, 1]);
    expect(row.seq).toBe(2);
    // A build that refuses anything but the real head is not refused on the remembered one.
    await appendPair(other, 3);
    const checked = await store.logs.append<ChainRow>('main', (head, seq) => {
      if (head?.n !== 3) throw new Error(`built on a stale head (n=${head?.n})`);
      return chainLink(head, seq, 4);
    });
    expect(checked.seq).toBe(4);
    const settled = await Promise.allSettled(companions);
    // Only a run of the build whose rows were written has its companion stored.
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
    for (const s of settled) if (s.status === 'rejected') expect(String(s.reason)).toMatch(/superseded/);
    expectUnbrokenChain(await store.logs.read<ChainRow>('main'));
    expect((await store.logs.read<LogRow & { of: number }>('side')).map((r) => r.of)).toEqual([0, 1, 2, 3]);
  });

  it('rejects only a companion whose build throws and keeps the row whose build appended it', async () => {
    const { store } = await postgres();
    let companion: Promise<LogRow> | undefined;
    const row = await store.logs.append<ChainRow>('main', (head, seq) => {
      companion = store.logs.append('side', () => {
        throw new Error('companion refused');
      });
      return chainLink(head, seq, 0);
    });
    await expect(companion).rejects.toThrow('companion refused');
    expect(row.seq).toBe(0);
    expect(await store.logs.count('main')).toBe(1);
    expect(await store.logs.count('side')).toBe(0);
    const after = await appendPair(store, 1);
    expect([after.row.seq, after.companion.seq]).toEqual([1, 0]);
  });
});

describe.skipIf(databaseUrl === undefined)('postgres: stored JSON', () => {
  it('returns records and rows with their keys in the order they were written, and strings holding U+0000', async () => {
    const { store, reopen } = await postgres();
    const value = { zeta: 1, alpha: { y: 2, b: 3 }, text: 'nul\u0000inside', big: 1e21, small: 5e-7 };
    await store.docs.put('odd', 'k', value);
    await store.logs.append('log', () => ({ tick: 3, type: 'x', ...value }));
    const again = await reopen();
    const doc = await again.docs.get<typeof value>('odd', 'k');
    expect(JSON.stringify(doc)).toBe(JSON.stringify(value));
    const row = await again.logs.get('log', 0);
    expect(JSON.stringify(row)).toBe(JSON.stringify({ seq: 0, tick: 3, type: 'x', ...value }));
  });

  it('stores quotes, backslashes, braces, commas and U+0000 in stream names, types and rows exactly as given', async () => {
    const { store, reopen } = await postgres();
    const stream = `odd/it's "a" \\ {b,c} \\'x`;
    const awkward = [`it's`, `"quoted", {braced}`, `back\\slash \\" \\\\`, `nul\u0000`, `E'not an escape'`, `ünï 😀 \n\t`];
    const appends = awkward.map((text, n) => store.logs.append(stream, () => ({ tick: n * 0.5, type: `t'"\\${n}`, text, list: [text, { text }] })));
    await Promise.all(appends);
    const again = await reopen();
    const rows = await again.logs.read<LogRow & { text: string; list: unknown[] }>(stream);
    expect(rows.map((r) => r.text)).toEqual(awkward);
    expect(rows.map((r) => r.type)).toEqual(awkward.map((_, n) => `t'"\\${n}`));
    expect(rows.map((r) => r.list)).toEqual(awkward.map((text) => [text, { text }]));
    expect(await again.logs.streams('odd/')).toEqual([stream]);
  });

  it('gives each of several reads of one record made at once its own copy, and reads missing ones as undefined', async () => {
    const { store } = await postgres();
    await store.docs.put('machines', 'm', { n: 1, tags: ['a'] });
    const [a, b, missing] = await Promise.all([
      store.docs.get<{ n: number; tags: string[] }>('machines', 'm'),
      store.docs.get<{ n: number; tags: string[] }>('machines', 'm'),
      store.docs.get('machines', 'absent'),
    ]);
    expect(a).toEqual({ n: 1, tags: ['a'] });
    a!.tags.push('changed');
    expect(b).toEqual({ n: 1, tags: ['a'] });
    expect(missing).toBeUndefined();
    await store.docs.put('machines', 'm', { n: 2, tags: [] });
    expect(await store.docs.get('machines', 'm')).toEqual({ n: 2, tags: [] });
  });

  it('refuses a document that is not a JSON object', async () => {
    const { store } = await postgres();
    await expect(store.docs.put('odd', 'k', 'text' as unknown as object)).rejects.toThrow(/must be a JSON object/);
    await expect(store.docs.insert('odd', 'k', undefined as unknown as object)).rejects.toThrow(/must be a JSON object/);
    expect(await store.docs.count('odd')).toBe(0);
  });
});

describe.skipIf(databaseUrl === undefined)('postgres: schema and migrations', () => {
  it('keeps stores on different schemas apart', async () => {
    const a = await postgres();
    const b = await postgres();
    await a.store.docs.put('machines', 'm', { n: 1 });
    await a.store.logs.append('audit', () => ({ tick: 0, type: 'x' }));
    expect(await b.store.docs.get('machines', 'm')).toBeUndefined();
    expect(await b.store.logs.streams()).toEqual([]);
  });

  it('answers find by field equality from the GIN index on the stored doc_fields, not by reading the collection', async () => {
    const { store, schema } = await postgres();
    const pool = rawPool();
    // Many records in several collections, inserted in one statement: the planner has real statistics.
    await pool.query(
      `INSERT INTO "${schema}".docs (collection, id, body)
       SELECT c, c || n, json_build_object('owner', 'u' || (n % 500), 'n', n)
       FROM unnest(ARRAY['machines', 'keys']) AS c, generate_series(1, 5000) AS n`,
    );
    await pool.query(`ANALYZE "${schema}".docs`);
    const page = await store.docs.find<{ n: number }>('machines', { owner: 'u7' }, { limit: 3 });
    expect(page.items.map((m) => m.n)).toEqual([7, 507, 1007]);
    const plan = await pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT pos FROM "${schema}".docs WHERE collection = 'machines'
         AND fields @> '{"c":"machines","f":{"owner":"u7"}}'::jsonb AND pos > 0 ORDER BY pos LIMIT 4`,
    );
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/docs_fields/);
  });

  it('answers an ordered find from the btree index of its field, reading a page, not sorting the matches', async () => {
    const { store, schema } = await postgres();
    const pool = rawPool();
    await pool.query(
      `INSERT INTO "${schema}".docs (collection, id, body)
       SELECT c, c || n, json_build_object('is_public', n % 10 <> 0, 'genesis_tick', n / 3)
       FROM unnest(ARRAY['machines', 'keys']) AS c, generate_series(1, 5000) AS n`,
    );
    // No ANALYZE: a server that just filled its store has no statistics yet, and the plan must hold.
    const page = await store.docs.find<{ genesis_tick: number }>('machines', { is_public: true }, { limit: 3, orderBy: { field: 'genesis_tick', desc: true } });
    expect(page.items.map((m) => m.genesis_tick)).toEqual([1666, 1666, 1665]);
    const num = `"${schema}".doc_number(fields, 'genesis_tick')`;
    // As the adapter asks it: sorting off for the statement, in a transaction.
    const client = await pool.connect();
    onTestFinished(() => client.release());
    await client.query('BEGIN');
    await client.query('SET LOCAL enable_sort = off');
    const plan = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT pos FROM "${schema}".docs WHERE collection = 'machines' AND ${num} IS NOT NULL
         AND fields @> '{"c":"machines","f":{"is_public":true}}'::jsonb
         ORDER BY ${num} DESC, pos DESC LIMIT 4`,
    );
    await client.query('COMMIT');
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/docs_order_genesis_tick/);
    expect(text).not.toMatch(/Sort/);
  });

  it('indexes every field the repositories order by (seats by heartbeat, proposals by creation included)', async () => {
    const { schema } = await postgres();
    const { rows } = await rawPool().query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = $1', [schema]);
    const names = rows.map((r) => r.indexname);
    for (const field of [...ORDERED_FIELDS, ...ORDERED_FIELDS_4]) expect(names).toContain(`docs_order_${field}`);
  });

  it('applies each migration once when several stores open a new schema at the same time', async () => {
    const schema = uniqueSchema();
    onTestFinished(() => dropSchema(schema));
    const stores = Array.from({ length: 4 }, () => createPostgresStore({ connectionString: databaseUrl!, schema, maxConnections: 2 }));
    onTestFinished(() => Promise.all(stores.map((s) => s.close())).then(() => undefined));
    await Promise.all(stores.map((s) => s.open()));
    const pool = rawPool();
    const { rows } = await pool.query(`SELECT version, name FROM "${schema}".schema_version ORDER BY version`);
    expect(rows).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    expect(await migrate(pool, tablesIn(schema))).toEqual([]);
  });

  it('refuses to open a schema that a newer server has migrated, saying what to do', async () => {
    const { schema } = await postgres();
    const pool = rawPool();
    await pool.query(`INSERT INTO "${schema}".schema_version (version, name) VALUES (999, 'from the future')`);
    const store = createPostgresStore({ connectionString: databaseUrl!, schema });
    await expect(store.open()).rejects.toThrow(/version 999, newer than this server knows/);
    expect(store.isOpen()).toBe(false);
  });

  it('reports an unreachable database when opening and stays closed', async () => {
    const store = createPostgresStore({ connectionString: 'postgres://postgres@127.0.0.1:1/none', schema: uniqueSchema() });
    await expect(store.open()).rejects.toThrow();
    expect(store.isOpen()).toBe(false);
  });
});
