import { describe, expect, it } from 'vitest';
import { createGrantRevocations } from '../../../src/domain/oauth/grant-revocations.js';
import { createEventBus } from '../../../src/domain/events.js';
import { createFakeNet } from '../../helpers/fake-net.js';
import { eventually } from '../../helpers/pg-wait.js';

describe('revoked OAuth grants across processes', () => {
  it("reach every process's bus once, the revoking one's at once", async () => {
    const net = createFakeNet();
    const heard: Record<string, string[]> = { a: [], b: [], c: [] };
    const revocations = Object.fromEntries(
      (['a', 'b', 'c'] as const).map((name) => {
        const bus = createEventBus();
        bus.on('oauth.grantRevoked', ({ grantId }) => void heard[name]!.push(grantId));
        return [name, createGrantRevocations(net.pubsub(name), bus)];
      }),
    );
    revocations.a!.revoked('g1');
    expect(heard.a).toEqual(['g1']);
    await eventually(() => expect([heard.b, heard.c]).toEqual([['g1'], ['g1']]));
    revocations.c!.revoked('g2');
    await eventually(() => expect(heard).toEqual({ a: ['g1', 'g2'], b: ['g1', 'g2'], c: ['g1', 'g2'] }));
  });

  it('ignores messages on its channel that are not a grant id', async () => {
    const net = createFakeNet();
    const bus = createEventBus();
    const heard: string[] = [];
    bus.on('oauth.grantRevoked', ({ grantId }) => void heard.push(grantId));
    createGrantRevocations(net.pubsub('a'), bus);
    net.pubsub('b').publish('oauth.grants', { o: 'x', g: 7 });
    net.pubsub('b').publish('oauth.grants', null);
    net.pubsub('b').publish('oauth.grants', { o: 'x', g: 'g3' });
    await eventually(() => expect(heard).toEqual(['g3']));
  });
});
