import type pg from 'pg';

/** PostgreSQL's error code for a unique constraint violation. */
export const UNIQUE_VIOLATION = '23505';

/** Longest identifier PostgreSQL keeps whole (NAMEDATALEN - 1 bytes). */
const MAX_IDENTIFIER_BYTES = 63;

/** The schema-qualified, quoted names of the store's tables. */
export interface Tables {
  /** The schema's name as given (unquoted). */
  schemaName: string;
  schema: string;
  version: string;
  docs: string;
  logHeads: string;
  logRows: string;
  docCounts: string;
  docTotals: string;
}

/** Quotes an identifier, so any schema name is safe to splice into SQL. */
export function quoteIdent(name: string): string {
  if (name.length === 0 || Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES || name.includes('\u0000')) {
    throw new TypeError(`invalid PostgreSQL schema name: ${JSON.stringify(name)} (1 to 63 bytes, no NUL)`);
  }
  return `"${name.replaceAll('"', '""')}"`;
}

export function tablesIn(schema: string): Tables {
  const s = quoteIdent(schema);
  return {
    schemaName: schema,
    schema: s,
    version: `${s}.schema_version`,
    docs: `${s}.docs`,
    logHeads: `${s}.log_heads`,
    logRows: `${s}.log_rows`,
    docCounts: `${s}.doc_counts`,
    docTotals: `${s}.doc_totals`,
  };
}

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION;
}

/**
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws. A connection whose ROLLBACK fails is destroyed rather than returned to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // Checked out, the client has no listener of the pool's: a cut connection would crash the process.
  // Its statement in flight fails instead.
  const onLost = (error: Error) => void (broken ??= error);
  client.on('error', onLost);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.off('error', onLost);
    client.release(broken);
  }
}
