import { describe, expect, it } from 'vitest';
import { createDeliveryGuard } from '../../../src/domain/chain/delivery-guard.js';
import type { IdentityService } from '../../../src/domain/identity/identity.service.js';
import type { MachinesService } from '../../../src/domain/chain/machines.service.js';
import { createFakeClock } from '../../../src/lib/clock.js';
import { createEventBus } from '../../../src/domain/events.js';
import type { SseEvent } from '../../../src/lib/handler-results.js';
import type { Caller } from '../../../src/domain/identity/caller.js';
import type { ChainRow } from '../../../src/domain/chain/hash-chain.js';

type Access = { role: 'viewer' | 'none'; untilMs: number | null } | undefined;

/** A guard over a machine whose access answers are released by the test, one check at a time. */
function rig() {
  const bus = createEventBus();
  const clock = createFakeClock();
  const pending: Array<(a: Access) => void> = [];
  const machines = { accessNow: () => new Promise<Access>((resolve) => pending.push(resolve)) } as unknown as MachinesService;
  const resumed = new Set<() => void>();
  const onResume = (cb: () => void) => (resumed.add(cb), () => void resumed.delete(cb));
  const identity = { credentialLive: () => Promise.resolve(true) } as unknown as IdentityService;
  const guard = createDeliveryGuard({ bus, clock, machines, identity, onResume });
  let push: (e: SseEvent) => void = () => undefined;
  let endSource: () => void = () => undefined;
  const source = {
    open: (p: (e: SseEvent) => void, _last?: string, end?: () => void) => {
      push = p;
      if (end) endSource = end;
      return () => undefined;
    },
  };
  const got: SseEvent[] = [];
  let ended = 0;
  const caller: Caller = { uid: 'u1', credential: 'user-key', keyId: 'k1' };
  guard.guard(source, { slug: 'm', caller, need: 'read' }).open(
    (e) => got.push(e),
    undefined,
    () => ended++,
  );
  const row = (n: number): SseEvent => ({ id: String(n), event: 'audit.appended', data: { seq: n } });
  const answer = async (a: Access) => {
    await waitFor(() => pending.length > 0);
    pending.shift()!(a);
    await new Promise((r) => setImmediate(r));
  };
  const appended = (slug: string, type: string) => bus.emit('audit.appended', { slug, isPublic: true, row: { type } as ChainRow });
  /** The messaging connection came back after a loss. */
  const resume = () => {
    for (const cb of [...resumed]) cb();
  };
  return {
    clock,
    pending,
    got,
    ended: () => ended,
    row,
    deliver: (e: SseEvent) => push(e),
    endSource: () => endSource(),
    answer,
    appended,
    resume,
    resumeListeners: () => resumed.size,
  };
}

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setImmediate(r));
  if (!ok()) throw new Error('never happened');
}

describe('delivery guard', () => {
  it('holds events until the first check passes, then delivers them in order', async () => {
    const r = rig();
    r.deliver(r.row(1));
    r.deliver(r.row(2));
    expect(r.got).toEqual([]);
    await r.answer({ role: 'viewer', untilMs: null });
    r.deliver(r.row(3));
    expect(r.got.map((e) => e.id)).toEqual(['1', '2', '3']);
  });

  it('checks again when access changes during a check, and drops what it held when the second check fails', async () => {
    const r = rig();
    await r.answer({ role: 'viewer', untilMs: null });
    r.appended('m', 'admin.revoked');
    r.deliver(r.row(1));
    r.appended('m', 'machine.share_disabled');
    await r.answer({ role: 'viewer', untilMs: null });
    expect(r.got).toEqual([]);
    await r.answer(undefined);
    expect(r.got.map((e) => e.event)).toEqual(['access.revoked']);
    expect(r.got[0]!.data).toMatchObject({ code: 'NOT_FOUND' });
    expect(r.ended()).toBe(1);
    r.deliver(r.row(2));
    expect(r.got).toHaveLength(1);
  });

  it('checks again when the messaging connection came back (access rows of the outage were not heard), holding rows meanwhile', async () => {
    const r = rig();
    await r.answer({ role: 'viewer', untilMs: null });
    r.deliver(r.row(1));
    r.resume();
    // Rows caught up after the outage wait for the fresh verdict.
    r.deliver(r.row(2));
    expect(r.got.map((e) => e.id)).toEqual(['1']);
    await r.answer(undefined);
    expect(r.got.map((e) => e.event)).toEqual(['audit.appended', 'access.revoked']);
    expect(r.ended()).toBe(1);
    // A closed flow no longer listens for resumes.
    expect(r.resumeListeners()).toBe(0);
  });

  it("ignores rows that change nobody's access and rows of other machines", async () => {
    const r = rig();
    await r.answer({ role: 'viewer', untilMs: null });
    r.appended('m', 'tick');
    r.appended('m', 'site.click');
    r.appended('other', 'admin.revoked');
    r.deliver(r.row(1));
    expect(r.got.map((e) => e.id)).toEqual(['1']);
    expect(r.pending).toHaveLength(0);
  });

  it('tells why when the source ended by itself because the right is gone (a machine found private), and ends once', async () => {
    const r = rig();
    await r.answer({ role: 'none', untilMs: null });
    r.deliver(r.row(1));
    r.endSource();
    expect(r.ended()).toBe(0);
    await r.answer(undefined);
    expect(r.got.map((e) => e.event)).toEqual(['audit.appended', 'access.revoked']);
    expect(r.got[1]!.data).toMatchObject({ code: 'NOT_FOUND' });
    expect(r.ended()).toBe(1);
  });

  it('ends without access.revoked when the source ended by itself and the right still holds (its client reconnects)', async () => {
    const r = rig();
    await r.answer({ role: 'viewer', untilMs: null });
    r.endSource();
    await r.answer({ role: 'viewer', untilMs: null });
    expect(r.got).toEqual([]);
    expect(r.ended()).toBe(1);
  });

  it('re-checks at the first delivery after the right lapses, without a timer', async () => {
    const r = rig();
    await r.answer({ role: 'none', untilMs: r.clock.now() + 1000 });
    r.deliver(r.row(1));
    expect(r.pending).toHaveLength(0);
    r.clock.advance(1000);
    r.deliver(r.row(2));
    expect(r.pending).toHaveLength(1);
    await r.answer(undefined);
    expect(r.got.map((e) => e.event)).toEqual(['audit.appended', 'access.revoked']);
  });
});
