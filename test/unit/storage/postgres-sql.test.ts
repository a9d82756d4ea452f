import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { readSql } from '../../../src/storage/postgres/pg-logs.js';
import { quoteIdent, tablesIn } from '../../../src/storage/postgres/sql.js';

const t = tablesIn('core');

describe('PostgreSQL log reads', () => {
  it('reads a whole stream in seq order with only the stream as parameter', () => {
    expect(readSql(t, 'chain/m', {})).toEqual({ text: 'SELECT body FROM "core".log_rows WHERE stream = $1 ORDER BY seq ASC', values: ['chain/m'] });
  });

  it('rounds seq bounds to the integers they admit and passes every bound as a parameter', () => {
    const sql = readSql(t, 's', { fromSeq: 2.5, toSeq: 9.5, fromTick: 1.5, toTick: 3, types: ['a'], reverse: true, limit: 2.2 });
    expect(sql?.text).toBe(
      'SELECT body FROM "core".log_rows WHERE stream = $1 AND seq >= $2 AND seq <= $3 AND tick >= $4::float8 AND tick <= $5::float8' +
        ' AND type = ANY($6::text[]) ORDER BY seq DESC LIMIT $7',
    );
    expect(sql?.values).toEqual(['s', 3, 9, 1.5, 3, ['a'], 3]);
  });

  it.each([
    ['an empty type list', { types: [] }],
    ['a zero limit', { limit: 0 }],
    ['a negative limit', { limit: -1 }],
    ['fromSeq Infinity', { fromSeq: Infinity }],
    ['toSeq -Infinity', { toSeq: -Infinity }],
    ['a NaN seq bound', { fromSeq: Number.NaN }],
  ])('asks the database nothing for %s', (_, query) => {
    expect(readSql(t, 's', query)).toBeUndefined();
  });

  it('drops bounds that admit every row', () => {
    expect(readSql(t, 's', { fromSeq: -5, toSeq: Infinity, limit: Infinity })?.values).toEqual(['s']);
  });
});

describe('PostgreSQL names', () => {
  it('quotes schema names so none can break out of the identifier', () => {
    expect(quoteIdent('a"b')).toBe('"a""b"');
    expect(() => quoteIdent('')).toThrow(/invalid PostgreSQL schema name/);
    expect(() => quoteIdent('x'.repeat(64))).toThrow(/1 to 63 bytes/);
  });

  it('reads DATABASE_SCHEMA from the environment and refuses one that is not a plain identifier', () => {
    expect(loadConfig({ DATABASE_SCHEMA: 'tenant_1' }).databaseSchema).toBe('tenant_1');
    expect(loadConfig({}).databaseSchema).toBeUndefined();
    expect(() => loadConfig({ DATABASE_SCHEMA: 'bad-name' })).toThrow(/DATABASE_SCHEMA must be a plain identifier/);
  });
});
