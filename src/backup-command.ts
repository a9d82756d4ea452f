import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadConfig } from './config.js';
import { genesisSeed, verifyChain } from './domain/chain/hash-chain.js';
import { createChainLogRepository } from './domain/chain/chain-log-repository.js';
import { createMachineRepository } from './domain/chain/machine-repository.js';
import type { Logger } from './log.js';
import { backupLowdb, type BackupReport } from './storage/lowdb/backup.js';
import { dataDirHolder } from './storage/lowdb/dir-holder.js';
import { createLowdbStore, type LowdbStore } from './storage/lowdb/lowdb.store.js';
import type { Store } from './storage/port.js';

export const BACKUP_USAGE = `Usage: core-server backup TARGET_DIR

Takes a consistent copy of the embedded store in CORE_DATA_DIR into TARGET_DIR (new or empty), also
while a server runs on it and writes go on: every write acknowledged before the backup started is in
the copy, every chain is whole. A running \`core-server serve\` takes the copy itself (it is asked with
SIGUSR2); otherwise this command opens the directory. Then every machine's chain in the copy is
verified. Restore: start a server with CORE_DATA_DIR=TARGET_DIR. Exit code 0 when the copy verifies.
PostgreSQL (DATABASE_URL): use pg_dump -n SCHEMA instead (docs/reliability.md, "Backups").
`;

/** Beside the lock: the serve process that answers backup requests (only that one is signalled). */
const LISTENER_FILE = '.backup-listener.json';
const REQUEST_PREFIX = '.backup-request-';
const RESULT_PREFIX = '.backup-result-';
/** Catches a hung server only: a large store takes as long as copying it does. */
const WAIT_LIMIT_MS = 60 * 60_000;

type Outcome = { ok: true; report: BackupReport } | { ok: false; error: string };

/** `core-server backup TARGET_DIR`: returns the exit code. */
export async function runBackup(args: readonly string[], env: NodeJS.ProcessEnv, out: (text: string) => void): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) return (out(BACKUP_USAGE), 0);
  if (args.length !== 1) return (out(`backup: give TARGET_DIR\n\n${BACKUP_USAGE}`), 1);
  const config = loadConfig(env);
  if (config.databaseUrl) return (out('backup: DATABASE_URL is set: back PostgreSQL up with pg_dump -n SCHEMA (docs/reliability.md, "Backups")\n'), 1);
  const { dataDir } = config;
  const target = resolve(args[0]!);
  let outcome: Outcome;
  const holder = await dataDirHolder(dataDir);
  if (holder !== undefined) {
    outcome = await askServer(dataDir, holder.pid, target);
  } else {
    const store = createLowdbStore({ dataDir });
    await store.open();
    try {
      outcome = await attempt(() => backupLowdb(store, dataDir, target));
    } finally {
      await store.close();
    }
  }
  if (!outcome.ok) return (out(`backup failed: ${outcome.error}\n`), 1);
  const { report } = outcome;
  out(
    `copied ${report.documents} documents in ${report.collections} collections, ${report.rows} log rows in ${report.streams} streams (calls held ${report.paused_ms} ms)\n`,
  );
  const broken = await verifyBackup(target);
  out(`verified ${broken.checked} chains: ${broken.failures.length === 0 ? 'all valid' : `${broken.failures.length} broken`}\n`);
  for (const line of broken.failures) out(`${line}\n`);
  return broken.failures.length === 0 ? 0 : 1;
}

/**
 * In `serve` on a lowdb store: answers `core-server backup` (SIGUSR2 plus a request file in the data
 * directory, which only its owner can write). Returns the function that stops answering.
 */
export async function answerBackups(dataDir: string, store: Store, log: Logger): Promise<() => Promise<void>> {
  if (store.backend !== 'lowdb') return async () => undefined;
  const lowdb = store as LowdbStore;
  let busy: Promise<void> = Promise.resolve();
  const handle = () => {
    busy = busy.then(async () => {
      const files = (await readdir(dataDir).catch(() => [] as string[])).filter((f) => f.startsWith(REQUEST_PREFIX));
      for (const file of files) {
        const id = file.slice(REQUEST_PREFIX.length, -'.json'.length);
        const request = await readFile(join(dataDir, file), 'utf8').then(
          (t) => JSON.parse(t) as { target?: unknown },
          () => undefined,
        );
        await unlink(join(dataDir, file)).catch(() => undefined);
        if (typeof request?.target !== 'string') continue;
        log.info('backup started', { target: request.target });
        const outcome = await attempt(() => backupLowdb(lowdb, dataDir, request.target as string));
        if (outcome.ok) log.info('backup done', { target: request.target, ...outcome.report });
        else log.error('backup failed', { target: request.target, err: outcome.error });
        await writeWhole(join(dataDir, `${RESULT_PREFIX}${id}.json`), JSON.stringify(outcome));
      }
    });
  };
  process.on('SIGUSR2', handle);
  await writeWhole(join(dataDir, LISTENER_FILE), JSON.stringify({ pid: process.pid }));
  return async () => {
    process.off('SIGUSR2', handle);
    await busy;
    await unlink(join(dataDir, LISTENER_FILE)).catch(() => undefined);
  };
}

/** Asks the serve process holding the directory to take the backup, and waits for its answer. */
async function askServer(dataDir: string, pid: number, target: string): Promise<Outcome> {
  const listener = await readFile(join(dataDir, LISTENER_FILE), 'utf8').then(
    (t) => JSON.parse(t) as { pid?: unknown },
    () => undefined,
  );
  // A process that does not answer backups would be killed by SIGUSR2: never signal one.
  if (listener?.pid !== pid) {
    return {
      ok: false,
      error: `the data directory ${dataDir} is held by process ${pid}, which does not answer backups (not a core-server serve of this version): stop it, or back up from the server holding it`,
    };
  }
  const id = randomBytes(8).toString('hex');
  await writeWhole(join(dataDir, `${REQUEST_PREFIX}${id}.json`), JSON.stringify({ target }));
  process.kill(pid, 'SIGUSR2');
  const result = join(dataDir, `${RESULT_PREFIX}${id}.json`);
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const text = await readFile(result, 'utf8').catch(() => undefined);
    if (text !== undefined) {
      await unlink(result).catch(() => undefined);
      return JSON.parse(text) as Outcome;
    }
    if (Date.now() > deadline) return { ok: false, error: `process ${pid} did not answer the backup request within ${WAIT_LIMIT_MS / 60_000} minutes` };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every machine's chain in the backup, walked from its genesis seed. */
async function verifyBackup(dir: string): Promise<{ checked: number; failures: string[] }> {
  const store = createLowdbStore({ dataDir: dir, fsync: false });
  await store.open();
  try {
    const chains = createChainLogRepository(store);
    const failures: string[] = [];
    let checked = 0;
    for await (const machine of createMachineRepository(store).each()) {
      const check = verifyChain(await chains.read(machine.slug), genesisSeed(machine.slug, machine.genesis_tick));
      checked += 1;
      if (!check.valid) failures.push(`chain ${machine.slug} broken at seq ${check.broken_seq}: ${check.reason}`);
    }
    return { checked, failures };
  } finally {
    await store.close();
  }
}

async function attempt(run: () => Promise<BackupReport>): Promise<Outcome> {
  try {
    return { ok: true, report: await run() };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Whole or absent: a reader never sees half a file. */
async function writeWhole(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${text}\n`, { mode: 0o600 });
  await rename(tmp, file);
}
