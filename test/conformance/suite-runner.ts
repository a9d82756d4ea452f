import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { node22Binary } from '../helpers/node22.js';

/** The revisions the suite can hold a server to (`--requirements`). */
export type Revision = '2025-11-25' | '2026-07-28';

/** One check as the suite writes it to a scenario's `checks.json`. */
export interface SuiteCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** What the suite made of one scenario: its checks, or why it wrote none (the scenario threw). */
export interface ScenarioOutcome {
  name: string;
  checks?: SuiteCheck[];
  crash?: string;
}

export interface SuiteRun {
  /** In the order the suite ran them. */
  scenarios: ScenarioOutcome[];
}

const require = createRequire(import.meta.url);
const suiteRoot = path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json'));

/** The installed suite's version, so a baseline written for another version is refused. */
export async function installedSuiteVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(suiteRoot, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/**
 * Runs `conformance server --requirements <revision>` (every server scenario the revision names, scored or
 * not) against `url` on the pinned Node 22 (the suite imports `fs.globSync`, which Node 20 lacks) and reads
 * back each scenario's `checks.json`. Resolves whatever the verdicts; rejects only when the suite itself
 * could not run (no scenario started, or it died by a signal).
 */
export async function runSuite(url: string, revision: Revision): Promise<SuiteRun> {
  const node = await node22Binary();
  const outDir = await mkdtemp(path.join(os.tmpdir(), `core-conformance-${revision}-`));
  try {
    const { NODE_OPTIONS: _ignored, ...env } = process.env;
    const args = [path.join(suiteRoot, 'dist', 'index.js'), 'server', '--url', url, '--requirements', revision, '--output-dir', outDir];
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      // The kill only catches a hang: a run takes about a second, and each scenario has the suite's own 30 s limit.
      execFile(node, args, { cwd: outDir, env, maxBuffer: 64 * 1024 * 1024, timeout: 240_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
        const exit = (err as { code?: unknown } | null)?.code;
        resolve({ code: err ? (typeof exit === 'number' ? exit : null) : 0, output: `${stdout}${stderr}` });
      });
    });
    const names = [...output.matchAll(/^=== Running scenario: (.+) ===$/gm)].map((m) => m[1]!);
    // The exit code itself says little: it is 1 whenever a scored scenario fails, as the fixture ones always do.
    if (code === null || names.length === 0) throw new Error(`the conformance suite did not run (exit ${code}):\n${output.slice(-4000)}`);
    const dirs = await resultDirs(outDir);
    return { scenarios: await Promise.all(names.map((name) => outcomeOf(name, dirs.get(name), output))) };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** `server-<scenario>-<ISO time>` directories by scenario name. */
async function resultDirs(outDir: string): Promise<Map<string, string>> {
  const dirs = new Map<string, string>();
  for (const entry of await readdir(outDir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (match) dirs.set(match[1]!, path.join(outDir, entry));
  }
  return dirs;
}

async function outcomeOf(name: string, dir: string | undefined, output: string): Promise<ScenarioOutcome> {
  const file = dir && path.join(dir, 'checks.json');
  if (file && existsSync(file)) return { name, checks: JSON.parse(await readFile(file, 'utf8')) as SuiteCheck[] };
  // A scenario that throws leaves its directory empty; the suite prints why.
  const failed = output.split('\n').find((line) => line.startsWith(`Failed to run scenario ${name}:`));
  return { name, crash: failed ?? 'the suite wrote no checks.json for it' };
}
