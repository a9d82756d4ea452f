import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../src/registry/registry.js';
import { CALLER_KINDS, expectedClass, validInput } from './auth-harness.js';
import { judge, startAuthFixture, type AuthFixture, type World } from './auth-world.js';
import { queryValue, requestOf } from './fuzz-harness.js';

/**
 * The auth matrix: every operation x every kind of caller, on a private and on a public machine, gets
 * the outcome class the registry's `auth` and `role` promise; private machines never show through
 * reads, streams or errors; issued secrets never come back in an answer or a log line.
 * (The same matrix over MCP and core_http: auth-matrix-mcp.test.ts, on the shared fixture in auth-world.ts.)
 */
let fx: AuthFixture;
let ops: Operation[] = [];
let world: World;

beforeAll(async () => {
  fx = await startAuthFixture('core-authm-');
  // Destructive operations last, so they take the world down as rarely as possible.
  ops = [...fx.running.core.registry.operations].sort((a, b) => Number(!!a.def.destructive) - Number(!!b.def.destructive));
  world = await fx.buildWorld();
});

afterAll(async () => {
  await fx?.stop();
});

const report = { suspects: [] as string[], checked: 0, noValidInput: [] as string[], domainRefusals: new Map<string, number>() };

describe('auth matrix', () => {
  it('gives every caller kind the outcome class the registry promises, on a private and a public machine', async () => {
    const wrong: string[] = [];
    for (const op of ops) {
      for (const machine of ['private', 'public'] as const) {
        for (const kind of CALLER_KINDS) {
          const slug = machine === 'private' ? world.priv : world.pub;
          const input = validInput(op, slug, fx.clock.now());
          if (!input) {
            if (kind === 'none' && machine === 'private') report.noValidInput.push(op.id);
            // Without a valid input only the credential check is observable (it runs before validation).
            if (!(op.def.auth === 'bearer' && expectedClass(op, kind, machine) === 'unauthenticated')) continue;
          }
          const res = await fx.callOp(op, input ?? { slug }, slug, world.callers[kind]);
          const { ok, want, got, nonReader } = judge(op, kind, machine, res.status, res.json, slug);
          report.checked++;
          if (want === 'passed' && nonReader && res.status < 300 && input && 'slug' in input)
            report.suspects.push(`${op.id} ${kind}: ${res.status} ${res.text.slice(0, 120)}`);
          if (want === 'passed' && got === 'forbidden') report.domainRefusals.set(op.id, (report.domainRefusals.get(op.id) ?? 0) + 1);
          if (!ok) wrong.push(`${op.id} ${machine} ${kind}: expected ${want}, got ${res.status} ${res.text.slice(0, 160)}`);
          if (res.status >= 200 && res.status < 300 && op.method !== 'GET' && !(await fx.worldIntact(world))) world = await fx.buildWorld();
        }
      }
    }
    if (process.env.AUTHM_REPORT)
      console.log(
        JSON.stringify(
          { checked: report.checked, worlds: fx.worlds, noValidInput: report.noValidInput, suspects: report.suspects, domain: [...report.domainRefusals] },
          null,
          1,
        ),
      );
    expect(wrong).toEqual([]);
  }, 600_000); // a hang-catcher only: the matrix takes 35-200 s depending on the machine's load

  it('answers a caller who cannot read a private machine exactly as if it did not exist, on every operation taking a slug', async () => {
    const differ: string[] = [];
    let ghosts = 0;
    for (const op of ops) {
      // Creating a machine necessarily tells whether its slug is taken (CONFLICT): not a read.
      if (op.id === 'chain.createMachine') continue;
      if (!('slug' in ((op.inputSchema.properties ?? {}) as object)) && !('motherSlug' in ((op.inputSchema.properties ?? {}) as object))) continue;
      if (op.def.destructive) continue;
      for (const kind of ['none', 'other_owner'] as const) {
        const input = validInput(op, world.priv, fx.clock.now());
        if (!input) continue;
        // A slug that never existed (fresh each time: some operations create what they name).
        const ghost = `authm-gone-${++ghosts}`;
        const ghostInput = validInput(op, ghost, fx.clock.now())!;
        const [a, b] = [await fx.callOp(op, input, world.priv, world.callers[kind]), await fx.callOp(op, ghostInput, ghost, world.callers[kind])];
        const norm = (r: { status: number; json: any }, slug: string) =>
          JSON.stringify({ status: r.status, code: r.json?.error?.code, message: r.json?.error?.message, details: r.json?.error?.details }).replaceAll(
            slug,
            'SLUG',
          );
        // Successful answers (node-level operations that only label by slug) are compared by status only.
        const same = a.status < 300 && b.status < 300 ? true : norm(a, world.priv) === norm(b, ghost);
        if (!same) differ.push(`${op.id} ${kind}: private ${norm(a, world.priv)} vs unknown ${norm(b, ghost)}`);
      }
    }
    expect(differ).toEqual([]);
  });

  it('never shows a private machine in any read, list, directory or count of a caller who may not read it', async () => {
    const seen: string[] = [];
    for (const op of ops) {
      if (op.method !== 'GET' || op.response.kind === 'stream') continue;
      for (const kind of ['none', 'other_owner'] as const) {
        const input = validInput(op, world.pub, fx.clock.now());
        if (!input) continue;
        const res = await fx.callOp(op, input, world.pub, world.callers[kind]);
        if (res.text.includes(world.priv)) seen.push(`${op.id} ${kind}: ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(seen).toEqual([]);
  });

  it("never sends a private machine's rows or name down an event stream of a caller who may not read it (1 s of each)", async () => {
    const streams = ops.filter((op) => op.response.kind === 'stream' && op.method === 'GET');
    const texts: string[] = [];
    // Every stream is opened (waited for, however slowly the server answers) before the private machine
    // is written to, then read until 1 s after the writes: a slow machine can only make that read see less.
    const stop = new AbortController();
    const opened: Promise<void>[] = [];
    const readFor = async (op: Operation, kind: 'none' | 'other_owner') => {
      const input = validInput(op, world.pub, fx.clock.now());
      if (!input) return;
      const { path, query } = requestOf(op, input, { slug: world.pub, motherSlug: world.pub });
      const q: Record<string, string> = {};
      for (const [k, v] of Object.entries(query)) q[k] = queryValue(v);
      const creds = world.callers[kind];
      const answered = fetch(`${fx.running.url}${path}?${new URLSearchParams(q)}`, {
        headers: creds.key ? { authorization: `Bearer ${creds.key}` } : {},
        signal: stop.signal,
      });
      opened.push(
        answered.then(
          () => undefined,
          () => undefined,
        ),
      );
      const res = await answered.catch(() => undefined);
      if (!res) return;
      let text = '';
      try {
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
      } catch {
        /* the stop after the read window ends the read */
      }
      texts.push(`${op.id} ${kind}: ${text}`);
    };
    const reading = Promise.all(streams.flatMap((op) => [readFor(op, 'none'), readFor(op, 'other_owner')]));
    await Promise.all(opened);
    // Activity on the private machine while the streams are open.
    for (let i = 0; i < 5; i++) {
      await fx.send('POST', `/api/chain/${world.priv}/event`, world.callers.owner, { type: 'authm.secret', payload: { n: i } });
    }
    await new Promise((r) => setTimeout(r, 1000));
    stop.abort();
    await reading;
    expect(texts.length).toBeGreaterThan(0);
    for (const t of texts) fx.scanForSecrets(t, t.slice(0, 60));
    expect(texts.filter((t) => t.includes(world.priv) || t.includes('authm.secret')).map((t) => t.slice(0, 300))).toEqual([]);
  });

  it('never returns an issued raw key, share token or session token in another answer, and never logs one', async () => {
    expect(fx.secrets.size).toBeGreaterThanOrEqual(9);
    expect(fx.logLines.length).toBeGreaterThan(100);
    for (const [i, line] of fx.logLines.entries()) fx.scanForSecrets(line, `log line ${i}`);
    expect([...new Set(fx.leaks)]).toEqual([]);
  });
});
