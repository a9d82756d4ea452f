import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Vitest global setup: one per-user state folder for the run (where `core-server mcp` remembers keys it
 * minted), so no test writes into the home of whoever runs the suite. Workers inherit the variable;
 * tests that spawn with a minimal environment pass it on (see `stateEnv`).
 */
export default function setup(): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'core-test-state-'));
  process.env.XDG_STATE_HOME = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
