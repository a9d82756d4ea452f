import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_VERSION, loadConfig } from '../../../src/config.js';
import { checkDatabaseReachable } from '../../../src/startup-checks.js';

const json = (file: string) => JSON.parse(readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8'));

describe('the files a client or a registry reads', () => {
  it('server.json names the npm package and mcpName, a remote with a secret key header, and the one version', () => {
    const pkg = json('package.json');
    const server = json('server.json');
    expect(server.name).toBe(pkg.mcpName);
    expect(server.name).toMatch(/^[a-z0-9.-]+\/[a-z0-9-]+$/);
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.version).toBe(API_VERSION);
    expect(server.packages).toEqual([
      expect.objectContaining({ registryType: 'npm', identifier: pkg.name, version: API_VERSION, transport: { type: 'stdio' } }),
    ]);
    expect(server.packages[0].packageArguments).toEqual([{ type: 'positional', value: 'mcp' }]);
    expect(server.packages[0].environmentVariables).toContainEqual(expect.objectContaining({ name: 'CORE_API_KEY', isSecret: true }));
    const [remote] = server.remotes;
    expect(remote.type).toBe('streamable-http');
    expect(new URL(remote.url).pathname).toBe('/api/mcp');
    expect(remote.headers).toContainEqual(expect.objectContaining({ name: 'X-API-Key', isSecret: true }));
  });

  it('the .mcpb manifest has the one version, starts `mcp`, and marks the key sensitive', () => {
    const manifest = json('mcpb/manifest.json');
    expect(manifest.version).toBe(API_VERSION);
    expect(manifest.server.mcp_config.args.at(-1)).toBe('mcp');
    expect(manifest.server.mcp_config.env.CORE_API_KEY).toBe('${user_config.api_key}');
    expect(manifest.user_config.api_key).toMatchObject({ type: 'string', sensitive: true, required: false });
  });

  it('mcp.json runs the installed command, with no path or data folder of this checkout', () => {
    const { core, 'core-http': http } = json('mcp.json').mcpServers;
    expect(core).toEqual({ command: 'core-server', args: ['mcp'], env: { LOG_LEVEL: 'warn' } });
    expect(http).toMatchObject({ type: 'http', url: 'http://127.0.0.1:8787/api/mcp' });
  });
});

describe('CORE_API_KEY', () => {
  it.each(['${user_config.api_key}', '${CORE_API_KEY}', ' ${x} ', ''])('counts the placeholder a client left unfilled (%j) as no key', (value) => {
    expect(loadConfig({ CORE_API_KEY: value }).apiKey).toBeUndefined();
  });

  it('keeps a real key', () => {
    expect(loadConfig({ CORE_API_KEY: 'core_abc' }).apiKey).toBe('core_abc');
  });
});

describe('the database reachability check', () => {
  it('leaves a Unix-socket URL to the store, which has no TCP port to try', async () => {
    await expect(checkDatabaseReachable({ databaseUrl: 'postgres:///core?host=/nonexistent/socket', dataDir: '/tmp' })).resolves.toBeUndefined();
    await expect(checkDatabaseReachable({ databaseUrl: 'postgresql:///core', dataDir: '/tmp' })).resolves.toBeUndefined();
  });
});
