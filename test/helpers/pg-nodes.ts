import { onTestFinished } from 'vitest';
import { databaseUrl, dropSchema, uniqueSchema } from '../store/postgres-harness.js';
import { startServerOn, type DirServer } from './durable-server.js';
import { tempDir } from './server.js';

/**
 * Two servers on one fresh PostgreSQL schema. Each has its own pool, session connection, bus, scheduler
 * and caches, so as far as the database and the domain can tell they are two processes. Both stop, and the
 * schema and data directories go, when the test finishes.
 */
export async function twoNodes(label: string, env: Record<string, string> = {}): Promise<{ a: DirServer; b: DirServer; schema: string }> {
  const schema = uniqueSchema(label);
  const dirs = await Promise.all([tempDir(), tempDir()]);
  const shared = { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema, ...env };
  const a = await startServerOn(dirs[0].dir, shared);
  const b = await startServerOn(dirs[1].dir, shared);
  onTestFinished(async () => {
    await Promise.all([a.stop(1000), b.stop(1000)]);
    await dropSchema(schema);
    await Promise.all(dirs.map((d) => d.cleanup()));
  });
  return { a, b, schema };
}
