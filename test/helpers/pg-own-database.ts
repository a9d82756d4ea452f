import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onTestFinished } from 'vitest';

/** The URL of `database` on the cluster of `baseUrl`. */
export function urlOf(baseUrl: string, database: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * A database of the calling test's own on the cluster of `baseUrl`, so refusing or cutting its
 * connections disturbs nobody else: `refuse` stops new connections and cuts the open ones (an outage),
 * `allow` ends it, `terminate` cuts the backends of one `application_name`; dropped when the test ends.
 */
export async function ownDatabase(baseUrl: string, prefix = 'own') {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  onTestFinished(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  return {
    name,
    url: urlOf(baseUrl, name),
    admin,
    async refuse() {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
    },
    async allow() {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    },
    /** Terminates this database's backends of `application` (waiting until each is gone); how many. */
    async terminate(application: string, where = 'true'): Promise<number> {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND pid <> pg_backend_pid() AND (${where})`,
        [name, application],
      );
      for (const { pid } of rows) await admin.query('SELECT pg_terminate_backend($1, 10000)', [pid]);
      return rows.length;
    },
  };
}
