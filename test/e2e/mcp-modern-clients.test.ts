import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { stdioEntryOfCheckout } from '../helpers/mcp-json.js';

/**
 * The judges of both MCP eras, end to end: the SDK's v2 client in its modern mode (it probes with
 * `server/discover` and stays modern only on a true answer) and the v1 client (2025-11-25, `initialize`),
 * over HTTP and stdio, against the same registry.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const config = stdioEntryOfCheckout();

let dataDir: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  dataDir = await tempDir('core-modern-stdio-');
});
afterAll(async () => {
  await dataDir.cleanup();
});
const server = useServer();

const CALL = { name: 'core_constants', arguments: { action: 'get', key: 'h' } };

/** The methods a client sent over HTTP, read from the request bodies it posted. */
function recordingFetch(methods: string[]): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string') {
      const method = (JSON.parse(init.body) as { method?: string }).method;
      if (method) methods.push(method);
    }
    return fetch(input, init);
  };
}

function stdioParams() {
  return {
    command: config.command,
    args: config.args,
    cwd: root,
    env: { ...config.env, CORE_DATA_DIR: dataDir.dir, LOG_LEVEL: 'warn', PATH: process.env.PATH ?? '' },
    stderr: 'pipe' as const,
  };
}

const modernClient = () => new Client({ name: 'e2e-modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });

describe('the v2 client in its modern mode', () => {
  it('stays on 2026-07-28 over HTTP: it never sends initialize, and lists and calls the tools', async () => {
    const sent: string[] = [];
    const client = modernClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { fetch: recordingFetch(sent) }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getServerVersion()?.name).toBe('core-server');
      expect(client.getInstructions()).toContain('core_account');
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(57);
      const result = await client.callTool(CALL);
      expect(result.isError).toBeFalsy();
      expect(sent[0]).toBe('server/discover');
      expect(sent).not.toContain('initialize');
    } finally {
      await client.close();
    }
  });

  it('stays on 2026-07-28 over stdio: the session never sends initialize', async () => {
    const transport = new StdioClientTransport(stdioParams());
    const sent: string[] = [];
    const send = transport.send.bind(transport);
    transport.send = (message) => {
      if ('method' in message) sent.push(message.method);
      return send(message);
    };
    const client = modernClient();
    await client.connect(transport);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(57);
      const result = await client.callTool(CALL);
      expect(result.isError).toBeFalsy();
      expect(sent).toContain('tools/call');
      expect(sent).not.toContain('initialize');
    } finally {
      await client.close();
    }
  });
});

describe('one registry for both eras', () => {
  it('gives the same tools/call answer to the v1 client on 2025-11-25 and the v2 client on 2026-07-28, over HTTP and stdio', async () => {
    const legacyHttp = new LegacyClient({ name: 'e2e-legacy', version: '1.0.0' });
    await legacyHttp.connect(new LegacyHttpTransport(new URL(`${server.url}/api/mcp`)));
    const legacyStdio = new LegacyClient({ name: 'e2e-legacy', version: '1.0.0' });
    await legacyStdio.connect(new LegacyStdioTransport(stdioParams()));
    const modern = modernClient();
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`)));
    try {
      expect(legacyHttp.getServerVersion()?.name).toBe('core-server');
      const [a, b, c] = await Promise.all([legacyHttp.callTool(CALL), legacyStdio.callTool(CALL), modern.callTool(CALL)]);
      const answer = (r: object) => {
        const { content, structuredContent, isError } = r as Record<string, unknown>;
        return { content, structuredContent, isError };
      };
      expect(answer(c)).toEqual(answer(a));
      expect(answer(b)).toEqual(answer(a));
      expect(a.structuredContent).toMatchObject({ ok: true, constant: { symbol: 'h' } });
      const [legacyTools, modernTools] = await Promise.all([legacyHttp.listTools(), modern.listTools()]);
      expect(modernTools.tools.map((t) => t.name)).toEqual(legacyTools.tools.map((t) => t.name));
    } finally {
      await Promise.all([legacyHttp.close(), legacyStdio.close(), modern.close()]);
    }
  });
});
