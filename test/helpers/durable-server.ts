import type { Clock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import { testConfig } from './server.js';

export interface DirServer extends RunningServer {
  call(method: string, path: string, opts?: { key?: string; body?: unknown }): Promise<{ status: number; body: any }>;
}

/**
 * A real HTTP server over a given data directory, so a test can stop it and start another on the same
 * data (a restart, or the same node with another configuration). The caller removes the directory.
 */
export async function startServerOn(dir: string, env: Record<string, string> = {}, clock?: Clock): Promise<DirServer> {
  const running = await startHttpServer({ config: testConfig(dir, env), log: createLogger('silent'), ...(clock ? { clock } : {}) });
  const call: DirServer['call'] = async (method, p, opts = {}) => {
    const headers: Record<string, string> = {};
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${running.url}${p}`, { method, headers, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return { ...running, call };
}
