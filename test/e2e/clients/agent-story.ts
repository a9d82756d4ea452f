import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from '../../helpers/server.js';
import { mcpJson, stdioEntryOfCheckout } from '../../helpers/mcp-json.js';

/**
 * One agent story, run by MCP clients nobody here wrote, over stdio and HTTP, each started from
 * mcp.json as a user would: mint a key, spin up a machine, deploy an inline contract with a cron
 * trigger and an `emit` post-action, read its schedule, append an event and read the activity, and get
 * an error result for bad input. Each client file supplies only how its client connects and calls.
 */

export const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The stdio entry of mcp.json, for a data directory and a key. Its `node` is the Node running the tests
 * (the project's Node 20), also when the client that starts it runs on Node 22 in a child process.
 */
export function stdioEntry(dataDir: string, key: string | undefined) {
  const entry = stdioEntryOfCheckout();
  return {
    command: entry.command,
    args: entry.args,
    cwd: root,
    env: {
      ...entry.env,
      CORE_API_KEY: key ?? '',
      CORE_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      CORE_RATE_LIMIT: 'off',
      PATH: process.env.PATH ?? '',
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? '',
    },
  };
}

/**
 * The HTTP entry of mcp.json pointed at a test server: its `${CORE_API_KEY}` placeholders filled in as
 * clients expand them, and a header left out when there is no key to put in it.
 */
export function httpEntry(serverUrl: string, key: string | undefined): { url: string; headers: Record<string, string> } {
  const entry = mcpJson().mcpServers['core-http'];
  const url = new URL(entry.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(entry.headers)) {
    if (value.includes('${CORE_API_KEY}') && !key) continue;
    headers[name] = value.replaceAll('${CORE_API_KEY}', key ?? '');
  }
  return { url: `${serverUrl}${url.pathname}`, headers };
}

/** A tool answer as the client handed it over, reduced to what the story checks. */
export interface ToolOutcome {
  isError: boolean;
  /** The structured answer (or the error body `{ error: { code, message } }`). */
  data: any;
}

export interface AgentClient {
  /** The server's tool names, without any prefix the client adds. */
  toolNames: string[];
  call(tool: string, args: Record<string, unknown>): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export type Transport = 'stdio' | 'http';

export interface ClientUnderTest {
  name: string;
  connect(target: { transport: Transport; stdio: ReturnType<typeof stdioEntry>; http: ReturnType<typeof httpEntry> }): Promise<AgentClient>;
}

/** A contract that fires at 03:00 UTC each day and emits an event when it does. */
export const CRON_CONTRACT = {
  name: 'nightly-report',
  states: { idle: { initial: true } },
  transitions: [
    {
      from: 'idle',
      to: 'idle',
      operator: 'KO42',
      trigger: { kind: 'cron', cron: '0 3 * * *' },
      post_actions: [{ type: 'emit', event: 'report.ready', payload: { kind: 'nightly' } }],
    },
  ],
};

/** Registers the story for one client, over both transports. */
export function agentStory(client: ClientUnderTest): void {
  describe.each(['stdio', 'http'] as const)(`${client.name} over %s`, (transport) => {
    let server: TestServer | undefined;
    let data: { dir: string; cleanup: () => Promise<void> } | undefined;
    let agent: AgentClient | undefined;
    let key: string | undefined;
    const slug = `story-${client.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${transport}`;

    const connect = async (withKey: string | undefined) => {
      await agent?.close();
      agent = await client.connect({
        transport,
        stdio: stdioEntry(data?.dir ?? '', withKey),
        http: httpEntry(server?.url ?? '', withKey),
      });
      return agent;
    };
    const call = async (tool: string, args: Record<string, unknown>) => {
      const outcome = await agent!.call(tool, args);
      return outcome;
    };

    beforeAll(async () => {
      if (transport === 'http') server = await startTestServer({ CORE_RATE_LIMIT: 'off' });
      else data = await tempDir('core-client-story-');
    });
    afterAll(async () => {
      await agent?.close();
      await server?.close();
      await data?.cleanup();
    });

    it('loads all 57 tools and mints a key without one', async () => {
      const anonymous = await connect(undefined);
      expect(anonymous.toolNames).toHaveLength(57);
      expect(anonymous.toolNames).toContain('core_contract_deploy');
      const minted = await call('core_account', { action: 'mint_demo_key' });
      expect(minted.isError, JSON.stringify(minted.data)).toBe(false);
      expect(minted.data.key).toMatch(/^core_/);
      key = minted.data.key;
      const keyed = await connect(key);
      const who = await keyed.call('core_account', { action: 'whoami' });
      expect(who.data).toMatchObject({ authenticated: true, uid: minted.data.uid });
    });

    it('spins up a machine, appends an event and reads it back in the activity', async () => {
      expect(key, 'needs the key of the first step').toBeDefined();
      const spun = await call('core_spin_up', { slug });
      expect(spun.isError, JSON.stringify(spun.data)).toBe(false);
      expect(spun.data.machine.slug).toBe(slug);
      const wrote = await call('core_chain_write', { action: 'append_event', slug, type: 'agent.note', payload: { text: 'hello' } });
      expect(wrote.isError, JSON.stringify(wrote.data)).toBe(false);
      expect(wrote.data.seq).toBeGreaterThan(0);
      const activity = await call('core_activity', { action: 'activity', slug });
      expect(activity.isError, JSON.stringify(activity.data)).toBe(false);
      expect(activity.data.rows.map((r: { type: string }) => r.type)).toContain('agent.note');
    });

    it('deploys an inline contract with a cron trigger and an emit post-action, and reads its schedule', async () => {
      expect(key, 'needs the key and machine of the steps before').toBeDefined();
      const deployed = await call('core_contract_deploy', { action: 'create', slug, definition: CRON_CONTRACT });
      expect(deployed.isError, JSON.stringify(deployed.data)).toBe(false);
      const id = deployed.data.contract.id as string;
      expect(id).toEqual(expect.any(String));
      const schedule = await call('core_contract_schedule', { action: 'next_fires', slug, id, count: 3 });
      expect(schedule.isError, JSON.stringify(schedule.data)).toBe(false);
      expect(schedule.data.contract_id).toBe(id);
      expect(schedule.data.fires).toHaveLength(3);
      for (const fire of schedule.data.fires as { at: string; trigger_kind: string }[]) {
        expect(fire.trigger_kind).toBe('cron');
        // The first tick (777 ms) at or after 03:00 UTC.
        expect(fire.at).toMatch(/T03:00:00\.\d{3}Z$/);
      }
    }, 60_000);

    it('gets an error result, with the stable code and what to fix, for input the server refuses', async () => {
      expect(key, 'needs the key of the first step').toBeDefined();
      // Valid against the advertised schema (which action needs `slug` is the server's check), so only
      // the server can refuse it.
      const refused = await call('core_activity', { action: 'activity' });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.data)).toMatch(/VALIDATION_FAILED/);
      expect(JSON.stringify(refused.data)).toMatch(/slug/);
    });
  });
}
