import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { ANONYMOUS } from '../../src/domain/identity/caller.js';
import { CoreError } from '../../src/errors.js';
import { mintKey, spinUp } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const PASSWORD = 'open sesame 42';
const clock = createFakeClock();

const server = useServer({}, clock);

/** A private machine with a read password; its owner's key. */
async function locked(slug: string) {
  const owner = await spinUp(server, slug);
  expect((await server.call('PATCH', `/api/chain/${slug}/settings`, { key: owner.key, body: { password: PASSWORD } })).status).toBe(200);
  return owner;
}

const unlock = (slug: string, password: string, key?: string) =>
  server.call('POST', `/api/chain/${slug}/unlock`, { ...(key ? { key } : {}), body: { password, ttl_ticks: 10 } });

/** How many answers had each status: 403 means the password was checked, 429 that the throttle refused first. */
function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

describe('the unlock throttle (REST)', () => {
  it('checks at most 5 of 40 parallel guesses from one address, and the rest are refused before the check', async () => {
    await locked('race-rest');
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => unlock('race-rest', `guess ${i}`)));
    expect(tally(answers.map((a) => a.status))).toEqual({ 403: 5, 429: 35 });
    const limited = answers.find((a) => a.status === 429)!;
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(limited.body.error.message).toMatch(/send your key to unlock/);
    expect(limited.body.error.details.retry_after_s).toBeGreaterThan(0);
  });

  it('still lets the person who knows the password in while anonymous guesses are held back: with any key of their own, or as a member', async () => {
    const owner = await locked('lockout');
    await Promise.all(Array.from({ length: 40 }, (_, i) => unlock('lockout', `guess ${i}`)));
    expect((await unlock('lockout', PASSWORD)).status).toBe(429);

    const friend = await mintKey(server);
    const byKey = await unlock('lockout', PASSWORD, friend.key);
    expect(byKey.status).toBe(200);
    expect((await server.call('GET', '/api/chain/lockout/activity', { headers: { 'x-share-token': byKey.body.share_token } })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await unlock('lockout', PASSWORD, owner.key)).status).toBe(200);

    clock.advance(61_000);
    expect((await unlock('lockout', PASSWORD)).status).toBe(200);
  });

  it('counts a signed-in guesser on their own: 40 parallel guesses with one key check 5', async () => {
    await locked('race-key');
    const guesser = await mintKey(server);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => unlock('race-key', `guess ${i}`, guesser.key)));
    expect(tally(answers.map((a) => a.status))).toEqual({ 403: 5, 429: 35 });
    expect((await unlock('race-key', PASSWORD)).status).toBe(200);
  });
});

describe('the unlock throttle across client addresses', () => {
  it('lets all anonymous addresses together check at most 20 guesses a minute on one machine, and a signed-in caller still gets in', async () => {
    await locked('many-addresses');
    const settings = server.core.services.machineSettings;
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        settings.unlock('many-addresses', ANONYMOUS, `guess ${i}`, 10, `198.51.100.${i}`).then(
          () => 'opened',
          (err: unknown) => (err instanceof CoreError ? err.code : 'other'),
        ),
      ),
    );
    expect(tally(outcomes.map((o) => (o === 'FORBIDDEN' ? 403 : o === 'RATE_LIMITED' ? 429 : 0)))).toEqual({ 403: 20, 429: 10 });
    const friend = await mintKey(server);
    expect((await unlock('many-addresses', PASSWORD, friend.key)).status).toBe(200);
  });
});

describe('the unlock throttle over MCP and core_http', () => {
  it('checks at most 5 of 20 parallel guesses through core_machine_settings', async () => {
    await locked('race-mcp');
    const client = new Client({ name: 'unlock-throttle', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`)));
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          client.callTool({ name: 'core_machine_settings', arguments: { action: 'unlock', slug: 'race-mcp', password: `guess ${i}` } }),
        ),
      );
      const codes = results.map((r) => (r.structuredContent as { error?: { code: string } } | undefined)?.error?.code);
      expect(tally(codes.map((c) => (c === 'FORBIDDEN' ? 403 : c === 'RATE_LIMITED' ? 429 : 0)))).toEqual({ 403: 5, 429: 15 });
    } finally {
      await client.close();
    }
  });

  it('checks at most 5 of 20 parallel guesses through core_http', async () => {
    await locked('race-http');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        server.call('POST', '/api/http', { body: { method: 'POST', path: '/api/chain/race-http/unlock', body: { password: `guess ${i}` } } }),
      ),
    );
    const codes = answers.map((a) => JSON.stringify(a.body).match(/"code":"(FORBIDDEN|RATE_LIMITED)"/)?.[1]);
    expect(tally(codes.map((c) => (c === 'FORBIDDEN' ? 403 : c === 'RATE_LIMITED' ? 429 : 0)))).toEqual({ 403: 5, 429: 15 });
  });
});
