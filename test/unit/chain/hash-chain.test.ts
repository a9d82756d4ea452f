import { describe, expect, it } from 'vitest';
import { genesisSeed, seal, stateHashOf, verifyChain, type ChainRow } from '../../../src/domain/chain/hash-chain.js';

function chainOf(n: number): ChainRow[] {
  const rows: ChainRow[] = [];
  let prev = genesisSeed('demo', 100);
  for (let seq = 0; seq < n; seq++) {
    const row = seal({
      seq,
      id: `demo:${seq}`,
      tick: 100 + seq,
      type: 'event',
      transition_id: `t${seq}`,
      actor_uid: 'u1',
      payload_digest: 'a'.repeat(64),
      prev_hash: prev,
      created_at: '2026-11-22T00:00:00.000Z',
    });
    rows.push(row);
    prev = row.state_hash;
  }
  return rows;
}

describe('the hash chain', () => {
  it('derives the genesis seed from slug and genesis tick', () => {
    expect(genesisSeed('demo', 100)).toMatch(/^[0-9a-f]{64}$/);
    expect(genesisSeed('demo', 100)).not.toBe(genesisSeed('demo', 101));
    expect(genesisSeed('demo', 100)).not.toBe(genesisSeed('demo2', 100));
  });

  it('hashes a row over its canonical JSON without state_hash', () => {
    const [row] = chainOf(1);
    const { state_hash, ...rest } = row!;
    expect(stateHashOf(rest)).toBe(state_hash);
  });

  it('verifies an intact chain from its genesis seed', () => {
    expect(verifyChain(chainOf(10), genesisSeed('demo', 100))).toMatchObject({ valid: true, count: 10, broken_at: null });
  });

  it('reports the tick of the first altered row', () => {
    const rows = chainOf(10);
    rows[4] = { ...rows[4]!, payload_digest: 'b'.repeat(64) };
    expect(verifyChain(rows, genesisSeed('demo', 100))).toMatchObject({ valid: false, count: 4, broken_at: 104, broken_seq: 4 });
  });

  it('reports a removed row as a broken link', () => {
    const rows = chainOf(10);
    rows.splice(6, 1);
    const check = verifyChain(rows, genesisSeed('demo', 100));
    expect(check).toMatchObject({ valid: false, broken_seq: 7 });
    expect(check.reason).toMatch(/prev_hash/);
  });
});
