import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createChainLogRepository } from '../../src/domain/chain/chain-log-repository.js';
import { BACKUP_MANIFEST } from '../../src/storage/lowdb/backup.js';
import { startServerOn } from '../helpers/durable-server.js';
import { tempDir } from '../helpers/server.js';
import { ok, serve, stopGracefully } from './crash-harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const MACHINES = ['bk-a', 'bk-b'];

/** `core-server backup TARGET` on `dataDir`: exit code and stdout. */
function runBackup(dataDir: string, target: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['dist/src/cli.js', 'backup', target], {
    cwd: root,
    env: { ...process.env, CORE_DATA_DIR: dataDir, DATABASE_URL: '', DATABASE_SCHEMA: '', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('core-server backup (lowdb)', () => {
  it('copies a running node under concurrent appends: the restored node holds every write acknowledged before the backup, every chain valid', async () => {
    const { dir, cleanup } = await tempDir('core-backup-src-');
    const { dir: parent, cleanup: cleanupTargets } = await tempDir('core-backup-dst-');
    onTestFinished(async () => {
      await cleanup();
      await cleanupTargets();
    });
    const served = await serve({ CORE_DATA_DIR: dir, DATABASE_URL: '', DATABASE_SCHEMA: '' });
    onTestFinished(() => stopGracefully(served));
    const { key } = await ok(served.url, 'POST', '/api/demo-key/mint', undefined, {});
    for (const slug of MACHINES) await ok(served.url, 'POST', '/api/chain/state-machines', key, { slug });

    // Four appenders per machine, each acknowledged row noted with its seq and hash.
    const acked = new Map<string, Map<number, string>>(MACHINES.map((slug) => [slug, new Map()]));
    let total = 0;
    let stop = false;
    const waiters: Array<{ n: number; done: () => void }> = [];
    const appenders = MACHINES.flatMap((slug) =>
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const res = await fetch(`${served.url}/api/chain/${slug}/event`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ type: 'load', payload: { w, i } }),
          });
          expect(res.status).toBe(200);
          const row = (await res.json()) as { seq: number; state_hash: string };
          acked.get(slug)!.set(row.seq, row.state_hash);
          total++;
          for (const waiter of waiters.splice(0)) {
            if (total >= waiter.n) waiter.done();
            else waiters.push(waiter);
          }
        }
      }),
    );
    const ackedAtLeast = (n: number) => new Promise<void>((resolve) => (total >= n ? resolve() : waiters.push({ n, done: resolve })));

    await ackedAtLeast(200);
    const before = new Map([...acked].map(([slug, rows]) => [slug, new Map(rows)]));
    const target = join(parent, 'backup-1');
    const backup = await runBackup(dir, target);
    const afterBackup = total;
    // Writes went on during and after the backup; the node kept answering.
    await ackedAtLeast(afterBackup + 50);
    stop = true;
    await Promise.all(appenders);
    console.info(
      `backup under load: ${before.get(MACHINES[0]!)!.size + before.get(MACHINES[1]!)!.size} rows acknowledged before it, ${total} by the end; ${backup.out.trim()}`,
    );
    expect(backup.code, backup.out).toBe(0);
    expect(backup.out).toMatch(new RegExp(`verified ${MACHINES.length} chains: all valid`));
    expect(served.stderr()).toMatch(/"msg":"backup done"/);
    const manifest = JSON.parse(await readFile(join(target, BACKUP_MANIFEST), 'utf8')) as { rows: number };
    expect(manifest.rows).toBeGreaterThan(0);

    // Restore: a server on the copy.
    const restored = await startServerOn(target);
    try {
      const chains = createChainLogRepository(restored.core.store);
      for (const slug of MACHINES) {
        const validation = await restored.call('GET', `/api/chain/${slug}/pohc/validate`, { key });
        expect(validation.status).toBe(200);
        expect(validation.body, slug).toMatchObject({ valid: true });
        const rows = new Map((await chains.read(slug)).map((r) => [r.seq, r.state_hash]));
        for (const [seq, hash] of before.get(slug)!) expect(rows.get(seq), `${slug} seq ${seq}`).toBe(hash);
        // Whatever the copy holds beyond that is exactly what the source acknowledged at those seqs.
        for (const [seq, hash] of rows) if (acked.get(slug)!.has(seq)) expect(acked.get(slug)!.get(seq)).toBe(hash);
      }
      // The restored node writes on.
      expect((await restored.call('POST', `/api/chain/${MACHINES[0]}/event`, { key, body: { type: 'after-restore' } })).status).toBe(200);
      expect((await restored.call('GET', `/api/chain/${MACHINES[0]}/pohc/validate`, { key })).body).toMatchObject({ valid: true });
    } finally {
      await restored.stop(1000);
    }

    // With no server on the directory, the command opens it itself; a target that is not empty is refused.
    await stopGracefully(served);
    const offline = join(parent, 'backup-2');
    const second = await runBackup(dir, offline);
    expect(second.code, second.out).toBe(0);
    const rowsNow = await (async () => {
      const server = await startServerOn(offline);
      try {
        const chains = createChainLogRepository(server.core.store);
        return Promise.all(MACHINES.map((slug) => chains.count(slug)));
      } finally {
        await server.stop(1000);
      }
    })();
    for (const [i, slug] of MACHINES.entries()) expect(rowsNow[i]).toBeGreaterThanOrEqual(acked.get(slug)!.size);
    const refused = await runBackup(dir, offline);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/not empty: give a new or empty directory/);
  });
});
