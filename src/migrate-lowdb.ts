import { genesisSeed, verifyChain } from './domain/chain/hash-chain.js';
import { createChainLogRepository } from './domain/chain/chain-log-repository.js';
import { createMachineRepository } from './domain/chain/machine-repository.js';
import { createContractRepository } from './domain/contracts/contract-repository.js';
import { createLowdbStore } from './storage/lowdb/lowdb.store.js';
import { copyDocsAndLogs, holdsLogs } from './storage/copy-store.js';
import type { Store } from './storage/port.js';

export interface MigrationReport {
  collections: number;
  documents: number;
  streams: number;
  rows: number;
  chains: number;
  /** Chains that failed verification after the copy (empty when all verify). */
  broken: Array<{ slug: string; reason: string | null; broken_seq: number | null }>;
}

/**
 * Copies an embedded (lowdb) data directory into an empty target store: every document with its id,
 * every log row with its seq (rows are re-appended in order; a seq that comes out different aborts),
 * then verifies every machine's hash chain on the target from its genesis seed. The source is opened
 * with its directory lock, so a server still running on it makes the migration fail rather than race.
 */
export async function migrateFromLowdb(dataDir: string, target: Store, progress: (line: string) => void = () => undefined): Promise<MigrationReport> {
  const machines = createMachineRepository(target);
  const targetChains = createChainLogRepository(target);
  if ((await holdsLogs(target)) || (await machines.count()) > 0) {
    throw new Error('the target database already holds data: migrate into an empty schema (set DATABASE_SCHEMA to a new name)');
  }
  const source = createLowdbStore({ dataDir, fsync: false });
  await source.open();
  try {
    const report: MigrationReport = { ...(await copyDocsAndLogs(source, target, progress)), chains: 0, broken: [] };

    for await (const machine of machines.each()) {
      const rows = await targetChains.read(machine.slug);
      // Data written before the activity index existed gets it here, so `active` and `recent` see every machine.
      const head = rows.at(-1);
      if (head !== undefined) await machines.touched(machine.slug, head.tick);
      const check = verifyChain(rows, genesisSeed(machine.slug, machine.genesis_tick));
      const sourceCount = await createChainLogRepository(source).count(machine.slug);
      report.chains += 1;
      if (!check.valid || rows.length !== sourceCount) {
        report.broken.push({ slug: machine.slug, reason: check.reason ?? `${rows.length} rows copied of ${sourceCount}`, broken_seq: check.broken_seq });
      }
    }
    // Contracts stored before the listener index existed get it here too (a copy keeps their order).
    await createContractRepository(target).backfillListeners();
    progress(`verified ${report.chains} chains: ${report.broken.length === 0 ? 'all valid' : `${report.broken.length} broken`}`);
    return report;
  } finally {
    await source.close();
  }
}

export const MIGRATE_USAGE = `Usage: core-server migrate --from-lowdb DIR

Copies the embedded store in DIR (the server's CORE_DATA_DIR, with the server stopped) into the
PostgreSQL database of DATABASE_URL (schema DATABASE_SCHEMA, default public), which must be empty,
keeping every document id and log seq; then verifies every machine's hash chain on the copy.
Exit code 0 when the copy verifies, 1 otherwise.
`;

/** `core-server migrate`: runs the copy with the configured database and returns the exit code. */
export async function runMigrate(args: readonly string[], env: NodeJS.ProcessEnv, out: (text: string) => void): Promise<number> {
  const at = args.indexOf('--from-lowdb');
  const dir = at === -1 ? undefined : args[at + 1];
  if (args.includes('--help') || args.includes('-h')) return (out(MIGRATE_USAGE), 0);
  if (dir === undefined || args.length !== 2) return (out(`migrate: give --from-lowdb DIR\n\n${MIGRATE_USAGE}`), 1);
  if (!env.DATABASE_URL) return (out('migrate: set DATABASE_URL to the PostgreSQL database to copy into\n'), 1);
  const { createPostgresStore } = await import('./storage/postgres/postgres.store.js');
  const target = createPostgresStore({ connectionString: env.DATABASE_URL, ...(env.DATABASE_SCHEMA ? { schema: env.DATABASE_SCHEMA } : {}) });
  await target.open();
  try {
    const report = await migrateFromLowdb(dir, target, (line) => out(`${line}\n`));
    for (const b of report.broken) out(`chain ${b.slug} broken at seq ${b.broken_seq}: ${b.reason}\n`);
    return report.broken.length === 0 ? 0 : 1;
  } catch (error) {
    out(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await target.close();
  }
}
