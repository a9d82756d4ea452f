import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLowdbStore } from '../../src/storage/lowdb/lowdb.store.js';
import { countChains } from './checks.js';
import { alive, freePort, OWNER } from './cluster.js';
import { call, freshDigest, Tally } from './load.js';
import { startServe, type ServeProcess } from './processes.js';
import { summary } from './summary.js';
import { waitUntil } from './world.js';

const run = promisify(execFile);
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
/** The tmpfs the node's data directory lives on. */
const TMPFS = '8m';
/** Space left free after the ballast file is written: a few hundred rows' worth, so the disk fills quickly. */
const LEFT_FREE = 192 * 1024;
/** Consecutive refusals that say the disk is full (more appends would only add refusals). */
const REFUSALS = 12;
/** Bounds on the append loops: they stop on an event (refused, acknowledged) long before. */
const MAX_APPENDS = 20_000;
const PREFIX = 'core-chaos-tmpfs-';

/** Unmounts and removes the tmpfs a crashed earlier run left mounted (its owner no longer runs). */
async function removeStaleMounts(): Promise<void> {
  for (const name of (await readdir(os.tmpdir())).filter((n) => n.startsWith(PREFIX))) {
    const dir = path.join(os.tmpdir(), name);
    const owner = Number(await readFile(path.join(dir, OWNER), 'utf8').catch(() => '0'));
    if (owner > 0 && alive(owner)) continue;
    await run('umount', [dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!asRoot)('chaos: lowdb on a full disk (root only: it mounts a tmpfs)', () => {
  let mount: string;
  let mounted = false;
  let node: ServeProcess | undefined;
  const tally = new Tally();

  beforeAll(async () => {
    await removeStaleMounts();
    mount = await mkdtemp(path.join(os.tmpdir(), PREFIX));
    await run('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS}`, 'tmpfs', mount]);
    mounted = true;
    await writeFile(path.join(mount, OWNER), String(process.pid));
  });

  afterAll(async () => {
    await node?.stop();
    if (mounted) await run('umount', [mount]);
    await rm(mount, { recursive: true, force: true });
    summary.faults.push('lowdb disk full');
    summary.requests = tally.total;
    summary.statuses = tally.summary();
    summary.print();
  });

  it('refuses writes with 503/507 (never 500), keeps exactly the acknowledged rows, resumes once space is free', async () => {
    const dataDir = path.join(mount, 'data');
    // The default 16 MiB free-space reserve is larger than this whole tmpfs: a reserve of 64 KiB leaves the
    // write path itself to meet the full disk.
    node = await startServe('lowdb', await freePort(), {
      CORE_DATA_DIR: dataDir,
      CORE_RATE_LIMIT: 'off',
      CORE_QUOTAS: 'demo_keys_per_address=off',
      CORE_DISK_RESERVE_KB: '64',
    });
    const minted = await call(tally, node.url, 'POST', '/api/demo-key/mint', undefined, {});
    expect(minted.status).toBe(200);
    const key = minted.body.key as string;
    const slug = 'chaos-disk-full';
    expect((await call(tally, node.url, 'POST', '/api/chain/state-machines', key, { slug })).status).toBe(200);

    const ballast = path.join(mount, 'ballast');
    const free = await statfs(mount);
    await writeFile(ballast, Buffer.alloc(Math.max(0, free.bavail * free.bsize - LEFT_FREE)));

    const acked = new Set<string>();
    const refused = new Set<string>();
    const refusals = new Tally();
    const append = async () => {
      const hash = freshDigest();
      const res = await call(tally, node!.url, 'POST', `/api/chain/${slug}/event`, key, { type: 'fill', hash });
      if (res.status >= 200 && res.status < 300) acked.add(hash);
      else {
        refused.add(hash);
        refusals.add(res.status);
      }
      return res.status;
    };
    // Fill the disk: append until REFUSALS in a row are refused.
    let inARow = 0;
    for (let i = 0; i < MAX_APPENDS && inARow < REFUSALS; i++) inARow = (await append()) === 200 ? 0 : inARow + 1;
    summary.extra.push(`lowdb disk full: ${acked.size} acknowledged before the disk filled, refusals ${refusals.summary()}`);
    expect(refusals.total, 'appends refused once the disk is full').toBeGreaterThanOrEqual(REFUSALS);
    expect.soft(refusals.count(500), `refusals answered 500 (${refusals.summary()})`).toBe(0);
    expect.soft(refusals.total - refusals.count(503) - refusals.count(507), `refusals that are neither 503 nor 507 (${refusals.summary()})`).toBe(0);

    // Free the space: the node accepts appends again by itself (no restart).
    await rm(ballast);
    let resumed = 0;
    await waitUntil(async () => {
      if ((await append()) === 200) resumed++;
      return resumed >= 5;
    });
    expect.soft(resumed, 'appends acknowledged after space was freed').toBeGreaterThanOrEqual(5);

    // Restart: exactly the acknowledged rows are in the chain, none of the refused ones.
    await node.stop();
    await node.restart();
    expect(await append(), 'an append after the restart').toBe(200);
    await node.stop();
    const store = createLowdbStore({ dataDir });
    await store.open();
    try {
      const chain = await countChains(store, new Map([[slug, acked]]), new Map([[slug, refused]]));
      summary.extra.push(
        `lowdb after restart: ${chain.rows} rows for ${acked.size} acknowledged appends; refused present ${chain.refusedPresent}, acknowledged lost ${chain.lostAcked}`,
      );
      expect.soft(chain.lostAcked, 'acknowledged appends missing after the restart').toBe(0);
      expect.soft(chain.refusedPresent, `refused appends present after the restart (of ${refused.size})`).toBe(0);
      expect.soft(chain.doubled, 'appends stored twice').toBe(0);
      expect.soft(chain.invalid, 'chains that do not verify').toEqual([]);
    } finally {
      await store.close();
    }
  });
});
