import { describe, expect, it } from 'vitest';
import { createContractHub } from '../../../src/domain/contracts/contract-hub.js';
import { CONTRACT_ROWS_CHANNEL, createContractRowsRelay } from '../../../src/domain/contracts/contract-rows-relay.js';
import { createScheduleRelay, SCHEDULE_CHANNEL } from '../../../src/domain/contracts/contract-schedule-relay.js';
import type { TransitionRecord } from '../../../src/domain/contracts/contract.types.js';
import { openCommitScope } from '../../../src/lib/commit-scope.js';
import type { Json, PubSub, Store } from '../../../src/storage/port.js';
import { storageOf } from '../../helpers/repositories.js';

/** A pubsub that records what is published, and when: a store sends a message published in a lock's transaction with its COMMIT. */
function recording() {
  const sent: Array<{ channel: string; payload: Json }> = [];
  const pubsub: PubSub = {
    publish: (channel, payload) => void sent.push({ channel, payload }),
    subscribe: () => () => undefined,
    onResume: () => () => undefined,
  };
  return { sent, pubsub };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('relays inside a lock’s transaction', () => {
  it('announce a contract row published in the transaction at once, so the message goes out with its commit', async () => {
    const { sent, pubsub } = recording();
    const relay = createContractRowsRelay({ ...storageOf({ pubsub } as unknown as Store), pubsub, hub: createContractHub(), onError: () => undefined });
    const row = (seq: number) => ({ seq, tick: 0, type: 'c1', contract_id: 'c1' }) as TransitionRecord;
    const scope = openCommitScope();
    await scope.run(async () => {
      relay.hub.publishTransition(row(4), 'm');
      expect(sent).toEqual([{ channel: CONTRACT_ROWS_CHANNEL, payload: { o: expect.any(String), r: [['t', 'm', 4, 4]] } }]);
    });
    scope.commit();
    // Outside a transaction, the rows of one turn are gathered into one message.
    relay.hub.publishTransition(row(5), 'm');
    relay.hub.publishTransition(row(6), 'm');
    expect(sent).toHaveLength(1);
    await nextTurn();
    expect(sent[1]).toEqual({ channel: CONTRACT_ROWS_CHANNEL, payload: { o: expect.any(String), r: [['t', 'm', 6, 5]] } });
    await relay.stop();
  });

  it('announce a scheduled fire in the transaction at once, and gather those made outside one per turn', async () => {
    const { sent, pubsub } = recording();
    const relay = createScheduleRelay({ pubsub, enabled: true, onFired: () => undefined });
    const scope = openCommitScope();
    await scope.run(async () => {
      relay.fired('c1', 12);
      relay.fired('c2', undefined);
      expect(sent.map((m) => m.payload)).toEqual([
        { o: expect.any(String), f: [['c1', 12]] },
        { o: expect.any(String), f: [['c2', null]] },
      ]);
    });
    scope.commit();
    relay.fired('c3', 13);
    relay.fired('c4', 14);
    expect(sent).toHaveLength(2);
    await nextTurn();
    expect(sent[2]).toEqual({
      channel: SCHEDULE_CHANNEL,
      payload: {
        o: expect.any(String),
        f: [
          ['c3', 13],
          ['c4', 14],
        ],
      },
    });
  });
});
