// Builds the MCP Bundle (.mcpb) a person installs in Claude Desktop with one click: the packed package
// (what `npm pack` ships, so the bundle runs exactly what npm users run) with its production
// dependencies under server/, and mcpb/manifest.json beside it; the official CLI (@anthropic-ai/mcpb,
// a pinned devDependency) validates the manifest and packs the folder.
// Usage: node scripts/build-mcpb.mjs [OUT_DIR]   (default: ./dist-bundle; dist/ must be built)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(path.join(root, 'mcpb', 'manifest.json'), 'utf8'));
// One version everywhere: a bundle that says another version than its package is refused here.
if (manifest.version !== pkg.version) throw new Error(`mcpb/manifest.json has version ${manifest.version}, package.json ${pkg.version}`);

const out = path.resolve(process.argv[2] ?? path.join(root, 'dist-bundle'));
const mcpb = path.join(root, 'node_modules', '.bin', 'mcpb');
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

const work = mkdtempSync(path.join(os.tmpdir(), 'core-mcpb-'));
try {
  const packed = run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], root).trim().split('\n').at(-1);
  const stage = path.join(work, 'bundle');
  const server = path.join(stage, 'server');
  mkdirSync(server, { recursive: true });
  run('tar', ['-xzf', path.join(work, packed), '-C', server, '--strip-components=1'], work);
  // Production dependencies only, from npm's cache when it has them (as the packed-install test does).
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock'], server);
  copyFileSync(path.join(root, 'mcpb', 'manifest.json'), path.join(stage, 'manifest.json'));
  copyFileSync(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
  run(mcpb, ['validate', path.join(stage, 'manifest.json')], stage);
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `${pkg.name}-${pkg.version}.mcpb`);
  run(mcpb, ['pack', stage, file], stage);
  process.stdout.write(`${file}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
