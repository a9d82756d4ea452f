import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { anchorIdHash, anchorMessage, legacyAnchorIdHash, newAnchorKey, signAnchor, verifyAnchor } from '../../../src/domain/chain/anchor.js';
import {
  checkpointMessage,
  keyIdOf,
  rawPublicKeyOf,
  SEAL_FORMAT,
  sealSigningInput,
  verifySeal,
  type Checkpoint,
  type SealArtifact,
} from '../../../src/domain/chain/checkpoint.js';
import { genesisSeed, seal, type ChainRow } from '../../../src/domain/chain/hash-chain.js';
import { parseArtifact, verifyArtifacts, verifyChainExport } from '../../../src/domain/chain/offline-verify.js';

function chainOf(slug: string, genesisTick: number, n: number, firstTick = genesisTick): ChainRow[] {
  const rows: ChainRow[] = [];
  let prev = genesisSeed(slug, genesisTick);
  for (let seq = 0; seq < n; seq++) {
    const row = seal({
      seq,
      id: `${slug}:${seq}`,
      tick: firstTick + seq,
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

function makeSeal(checkpoints: Array<Omit<Checkpoint, 'signature'>>) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKeyOf(publicKey);
  const signText = (text: string) => sign(null, Buffer.from(text), privateKey).toString('base64url');
  const unsigned: Omit<SealArtifact, 'signature'> = {
    ok: true,
    format: SEAL_FORMAT,
    origin: 'node:x',
    tick: 5,
    algorithm: 'Ed25519',
    key_id: keyIdOf(raw),
    public_key: raw,
    checkpoint_every_ticks: 1287,
    checkpoint_message: 'x',
    checkpoints: checkpoints.map((c) => ({ ...c, signature: signText(checkpointMessage(c)) })),
  };
  return { ...unsigned, signature: signText(sealSigningInput(unsigned)) } as SealArtifact;
}

describe('offline chain verification', () => {
  it('accepts an intact chain and confirms the genesis seed near the first tick', () => {
    const verdict = verifyChainExport(chainOf('demo', 100, 5, 101));
    expect(verdict).toMatchObject({ valid: true, count: 5, genesis: 'verified', broken_at: null, slug: 'demo' });
  });

  it('reports the first altered row by seq and tick', () => {
    const rows = chainOf('demo', 100, 5);
    rows[2] = { ...rows[2]!, payload_digest: 'b'.repeat(64) };
    expect(verifyChainExport(rows)).toMatchObject({ valid: false, broken_seq: 2, broken_at: 102 });
  });

  it('reports rows missing in the middle', () => {
    const rows = chainOf('demo', 100, 5);
    const verdict = verifyChainExport([rows[0]!, rows[1]!, rows[3]!, rows[4]!]);
    expect(verdict.valid).toBe(false);
    expect(verdict.problems.join(' ')).toMatch(/missing between seq 1 and seq 3/);
  });

  it('fails a chain that ends before a signed checkpoint or disagrees with it', () => {
    const rows = chainOf('demo', 100, 5);
    const at4 = { slug: 'demo', seq: 4, tick: 104, head_hash: rows[4]!.state_hash, signed_tick: 110, signature: '' };
    expect(verifyChainExport(rows, { checkpoints: [at4] }).valid).toBe(true);
    expect(verifyChainExport(rows.slice(0, 3), { checkpoints: [at4] }).problems.join()).toMatch(/missing at the end/);
    expect(verifyChainExport(rows, { checkpoints: [{ ...at4, head_hash: 'c'.repeat(64) }] }).problems.join()).toMatch(/rewritten/);
    expect(verifyChainExport(rows, { checkpoints: [{ ...at4, slug: 'other' }] }).checkpoints_checked).toBe(0);
  });

  it('reads JSON lines, arrays, explore answers newest-first or not, and seals', () => {
    const rows = chainOf('demo', 100, 3);
    const lines = parseArtifact(rows.map((r) => JSON.stringify(r)).join('\n'));
    expect(lines).toMatchObject({ kind: 'chain', slug: 'demo' });
    const explore = parseArtifact(JSON.stringify({ ok: true, slug: 'demo', rows: [...rows].reverse() }));
    expect(explore.kind === 'chain' && explore.rows.map((r) => r.seq)).toEqual([0, 1, 2]);
    expect(parseArtifact(JSON.stringify(makeSeal([]))).kind).toBe('seal');
    expect(() => parseArtifact('{"a":1}')).toThrow(/not a core-seal-v1 seal/);
    expect(() => parseArtifact('')).toThrow(/empty/);
  });
});

describe('seals', () => {
  it('verifies the artifact and checkpoint signatures and the key id', () => {
    const s = makeSeal([{ slug: 'demo', seq: 1, tick: 2, head_hash: 'd'.repeat(64), signed_tick: 3 }]);
    expect(verifySeal(s)).toMatchObject({ valid: true, checkpoints: 1 });
    expect(verifySeal(s, { expectKeyId: 'nope' }).valid).toBe(false);
    expect(verifySeal({ ...s, tick: 6 }).problems.join()).toMatch(/artifact signature/);
    const badCheckpoint = { ...s, checkpoints: [{ ...s.checkpoints[0]!, signature: s.signature }] };
    expect(verifySeal(badCheckpoint).problems.join()).toMatch(/checkpoint 0/);
    expect(verifySeal({ ...s, key_id: '0000000000000000' }).valid).toBe(false);
  });

  it('checks chains against the checkpoints of valid seals only', () => {
    const rows = chainOf('demo', 100, 3);
    const good = makeSeal([{ slug: 'demo', seq: 2, tick: 102, head_hash: rows[2]!.state_hash, signed_tick: 120 }]);
    const ok = verifyArtifacts([
      { name: 's', artifact: { kind: 'seal', seal: good } },
      { name: 'c', artifact: { kind: 'chain', rows, slug: 'demo', genesisTick: 100 } },
    ]);
    expect(ok.valid).toBe(true);
    const cut = verifyArtifacts([
      { name: 's', artifact: { kind: 'seal', seal: good } },
      { name: 'c', artifact: { kind: 'chain', rows: rows.slice(0, 2), slug: 'demo', genesisTick: null } },
    ]);
    expect(cut.valid).toBe(false);
  });
});

describe('anchors', () => {
  it('derives the id hash from the node secret, slug and genesis hash, case-insensitively in the hash', () => {
    const secret = randomBytes(32);
    const genesis = genesisSeed('child', 7);
    expect(anchorIdHash(secret, 'child', genesis)).toBe(anchorIdHash(secret, 'child', genesis.toUpperCase()));
    expect(anchorIdHash(secret, 'child', genesis)).not.toBe(anchorIdHash(secret, 'child2', genesis));
    expect(legacyAnchorIdHash('child', genesis)).toBe(legacyAnchorIdHash('child', genesis.toUpperCase()));
  });

  it('cannot be reproduced from the slug and a guessed genesis tick without the node secret', () => {
    const secret = randomBytes(32);
    const genesisTick = 2_287_000_123;
    const pseudonym = anchorIdHash(secret, 'child', genesisSeed('child', genesisTick));
    // The attack: guess the slug and try every tick in a window around the creation (~400 hashes).
    const guesses = new Set<string>();
    for (let tick = genesisTick - 200; tick <= genesisTick + 200; tick++) {
      const genesis = genesisSeed('child', tick);
      guesses.add(legacyAnchorIdHash('child', genesis));
      guesses.add(createHash('sha256').update(`anchor-id|child|${genesis}`).digest('hex'));
      guesses.add(anchorIdHash(randomBytes(32), 'child', genesis));
    }
    expect(guesses.has(legacyAnchorIdHash('child', genesisSeed('child', genesisTick)))).toBe(true);
    expect(guesses.has(pseudonym)).toBe(false);
  });

  it('signs and verifies an anchor claim, which any change breaks', () => {
    const key = newAnchorKey('child', 'e'.repeat(64), 1);
    const claim = { mother_slug: 'mom', id_hash: 'e'.repeat(64), head_seq: 3, head_tick: 9, head_hash: 'f'.repeat(64) };
    const signature = signAnchor(key, claim);
    expect(anchorMessage(claim)).toBe(`anchor|mom|${'e'.repeat(64)}|3|9|${'f'.repeat(64)}`);
    expect(verifyAnchor(key.public_key, claim, signature)).toBe(true);
    expect(verifyAnchor(key.public_key, { ...claim, mother_slug: 'other' }, signature)).toBe(false);
    expect(verifyAnchor('not-a-key', claim, signature)).toBe(false);
  });
});
