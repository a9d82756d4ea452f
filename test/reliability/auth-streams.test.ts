import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../src/registry/registry.js';
import { expectedClass, validInput, type CallerKind } from './auth-harness.js';
import { credentialHeaders, startAuthFixture, type AuthFixture, type World } from './auth-world.js';
import { queryValue, requestOf, withTimeout } from './fuzz-harness.js';

/**
 * Cross-object cases of the auth matrix: streams across revocation. Every stream the registry declares
 * on a machine is opened by each kind of reader whose right can be taken away, the right is taken away
 * (share token disabled, member removed, machine made private), and the stream must end with
 * `access.revoked` before anything written afterwards reaches it. The list of streams comes from the
 * registry, so a new stream is checked without being named here.
 */
let fx: AuthFixture;
let streams: Operation[] = [];

beforeAll(async () => {
  fx = await startAuthFixture('core-auths-');
  streams = fx.running.core.registry.operations.filter((op) => op.response.kind === 'stream' && op.response.feed !== 'public');
});

afterAll(async () => {
  await fx?.stop();
});

interface Revocation {
  name: string;
  kind: CallerKind;
  machine: 'private' | 'public';
  revoke(world: World): Promise<unknown>;
}

const REVOCATIONS: Revocation[] = [
  {
    name: 'share token disabled',
    kind: 'share_token',
    machine: 'private',
    revoke: (w) => fx.must('POST', `/api/chain/state-machines/${w.priv}/share/disable`, w.callers.owner, {}),
  },
  {
    name: 'member removed',
    kind: 'session',
    machine: 'private',
    revoke: (w) => fx.must('DELETE', `/api/chain/${w.priv}/admins/${w.uids.session}`, w.callers.owner),
  },
  {
    name: 'machine made private',
    kind: 'none',
    machine: 'public',
    revoke: (w) => fx.must('PATCH', `/api/chain/${w.pub}/settings`, w.callers.owner, { is_public: false }),
  },
];

/** Opens a stream; resolves with its events once the server ends it. */
async function open(op: Operation, slug: string, world: World, kind: CallerKind) {
  const input = validInput(op, slug, fx.clock.now());
  if (!input) return undefined;
  const { path, query } = requestOf(op, input, { slug, motherSlug: slug });
  const q: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) q[k] = queryValue(v);
  const abort = new AbortController();
  const res = await fetch(`${fx.running.url}${path}?${new URLSearchParams(q)}`, { headers: credentialHeaders(world.callers[kind]), signal: abort.signal });
  if (res.status !== 200 || !res.body) {
    abort.abort();
    return { status: res.status, ended: Promise.resolve([] as EventSourceMessage[]), abort };
  }
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      /* aborted */
    }
    return events;
  })();
  return { status: 200, ended, abort };
}

describe('auth matrix: streams across revocation', () => {
  it('ends every machine stream a reader opened once that reader loses the right, before a later row reaches it', async () => {
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const op of streams) {
      for (const r of REVOCATIONS) {
        if (expectedClass(op, r.kind, r.machine) !== 'passed') continue;
        const world = await fx.buildWorld();
        const slug = r.machine === 'private' ? world.priv : world.pub;
        const stream = await open(op, slug, world, r.kind);
        // A stream of an object the world does not hold (a contract id) is refused by its handler: nothing to revoke.
        if (!stream || stream.status !== 200) continue;
        await r.revoke(world);
        await fx.must('POST', `/api/chain/${slug}/event`, world.callers.owner, { type: 'authm.after', payload: { n: 1 } });
        const events = await withTimeout(stream.ended, `${op.id} after ${r.name}`, 60_000).catch((err: Error) => {
          stream.abort.abort();
          wrong.push(`${op.id} (${r.name}): ${err.message}`);
          return undefined;
        });
        if (!events) continue;
        const last = events[events.length - 1];
        if (last?.event !== 'access.revoked') wrong.push(`${op.id} (${r.name}): ended without access.revoked`);
        if (events.some((e) => e.data.includes('authm.after'))) wrong.push(`${op.id} (${r.name}): delivered a row written after the revocation`);
        checked.push(`${op.id} (${r.name})`);
      }
    }
    expect(wrong).toEqual([]);
    for (const r of REVOCATIONS) expect(checked).toContain(`chain.streamExplore (${r.name})`);
  });
});
