import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/lib/canonical-json.js';
import { createFakeClock, phaseOf, tickOf } from '../../src/lib/clock.js';
import { substrateAt } from '../../src/domain/operators/substrate.js';
import { mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const NOW = 1_777_000_123_456;

const server = useServer({}, createFakeClock(NOW));

const compute = (body: unknown, key?: string) => server.call('POST', '/api/compute', { body, ...(key ? { key } : {}) });
const keyOf = (raw: string) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw }, format: 'jwk' });

/** A foreign node: its own Ed25519 key signs claims this node must judge. */
function foreignNode() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
  return { public_key: raw, sign: (claim: unknown) => sign(null, Buffer.from(canonicalJson(claim)), privateKey).toString('base64url') };
}

describe('POST /api/compute (compute.run)', () => {
  it('prepends KO42, evaluates the operator in its units and returns a receipt and a claim signed by the node key', async () => {
    const res = await compute({ operators: ['NM19'], inputs: { m: 2, a: 9.81 } });
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({ value: 19.62, unit: 'N', operators: ['KO42', 'NM19'], degraded: false });
    const at = { tick: tickOf(NOW), phase: phaseOf(NOW) };
    expect(body.results[0]).toMatchObject({ operator: 'KO42', unit: '', value: substrateAt(at).value });
    expect(body.results[1]).toMatchObject({ operator: 'NM19', value: 19.62, unit: 'N' });
    expect(body.results[1].equation).toContain('F = m·a');
    expect(body.receipt).toMatchObject({ kind: 'compute', operator_chain: ['KO42', 'NM19'], solver: null, tick: at.tick });

    const { claim, signature, public_key } = body.signed;
    expect(claim).toMatchObject({ operators: ['KO42', 'NM19'], inputs: { m: 2, a: 9.81 }, value: 19.62, unit: 'N', tick: at.tick, phase: at.phase });
    expect(claim.registry_version).toMatch(/^[0-9a-f]{64}$/);
    expect(verify(null, Buffer.from(canonicalJson(claim)), keyOf(public_key), Buffer.from(signature, 'base64url'))).toBe(true);
  });

  it('feeds an earlier output into a later input of the same name, converting kN to N', async () => {
    const thrust = { mdot: 300, v_e: 3000, p_e: 70, p_a: 101.325, A_e: 0.9 };
    const res = await compute({ operators: ['AERO3', 'NM3'], inputs: { ...thrust, v: 2 } });
    expect(res.status).toBe(200);
    const force = res.body.results[1];
    expect(force).toMatchObject({ operator: 'AERO3', unit: 'kN' });
    expect(res.body.unit).toBe('W');
    expect(res.body.value).toBeCloseTo(force.value * 1000 * 2, 6);
  });

  it('lets `<ID>.<name>` give one operator its own value of a shared input name', async () => {
    const res = await compute({ operators: ['NM19', 'NM23'], inputs: { m: 2, a: 3, 'NM23.m': 10, v: 4 } });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { value: number }) => r.value).slice(1)).toEqual([6, 80]);
  });

  it('refuses KO42 alone with 400, pointing to the pulse endpoint', async () => {
    const res = await compute({ operators: ['KO42'], inputs: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('at least one operator besides KO42');
  });

  it('accepts KO42 listed explicitly next to three operators', async () => {
    const res = await compute({ operators: ['KO42', 'NM19', 'NM3', 'NM23'], inputs: { m: 2, a: 3, v: 4 } });
    expect(res.status).toBe(200);
    expect(res.body.operators).toEqual(['KO42', 'NM19', 'NM3', 'NM23']);
  });

  it('refuses more than 3 operators beyond the mandatory KO42 with 400', async () => {
    const res = await compute({ operators: ['NM19', 'NM3', 'NM23', 'NM26'], inputs: { m: 2, a: 3, v: 4 } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('at most 3 operators beyond the mandatory KO42');
  });

  it('answers 400 naming a missing input with its unit', async () => {
    const res = await compute({ operators: ['NM19'], inputs: { m: 2 } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('needs input "a" in m/s^2');
    expect(res.body.error.details).toMatchObject({ operator: 'NM19', input: 'a' });
  });

  it('answers 422 for an input outside its declared bounds', async () => {
    const res = await compute({ operators: ['NM19'], inputs: { m: -1, a: 9.81 } });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain('below its minimum 0 kg');
  });

  it('answers 422 when the formula has no finite value for the inputs', async () => {
    const res = await compute({ operators: ['FIN5'], inputs: { D1: 2, r: 0.05, g: 0.05 } });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain('no finite real value');
  });

  it('answers 400 for an input no operator uses, a repeated operator or a non-numeric input, and 404 for an unknown operator', async () => {
    const unused = await compute({ operators: ['NM19'], inputs: { m: 2, a: 3, mass: 4 } });
    expect(unused.status).toBe(400);
    expect(unused.body.error.message).toContain('"mass" is used by no operator of the chain (NM19 takes m, a)');
    const twice = await compute({ operators: ['NM19', 'NM19'], inputs: { m: 2, a: 3 } });
    expect(twice.status).toBe(400);
    const text = await compute({ operators: ['NM19'], inputs: { m: 'two', a: 3 } });
    expect(text.status).toBe(400);
    const unknown = await compute({ operators: ['ZZ404'], inputs: {} });
    expect(unknown.status).toBe(404);
  });

  it('issues a receipt that the proof endpoint verifies by re-running the compute', async () => {
    const inputs = { S: 100, K: 105, r: 0.05, sigma: 0.2, T: 0.5 };
    const res = await compute({ operators: ['FIN6'], inputs });
    expect(res.body.value).toBeCloseTo(4.5817, 4);
    const check = await server.call('POST', '/api/proof/verify', {
      body: { receipt: res.body.receipt, recompute: true, inputs, output: { value: res.body.value, unit: res.body.unit } },
    });
    expect(check.status).toBe(200);
    expect(check.body.checks).toEqual(expect.arrayContaining(['hmac', 'input_sha256', 'output_sha256', 'recompute']));
  });

  it('counts a compute made with a key in the caller usage', async () => {
    const { key } = await mintKey(server);
    expect((await compute({ operators: ['NM19'], inputs: { m: 1, a: 1 } }, key)).status).toBe(200);
    const usage = await server.call('GET', '/api/compute/usage', { key });
    expect(usage.status).toBe(200);
    expect(usage.body.computes).toBe(1);
  });
});

describe('POST /api/attest (proof.attestClaim)', () => {
  const attest = (body: unknown) => server.call('POST', '/api/attest', { body });

  it('agrees with its own signed claim and signs the verdict with the node key', async () => {
    const { body } = await compute({ operators: ['TEL12'], inputs: { A: 10, N: 12 } });
    const res = await attest(body.signed);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ verdict: 'agree', signature_valid: true, recomputed: { value: body.value, unit: '' } });
    const { attestation } = res.body;
    const signed = canonicalJson({ claim_sha256: attestation.claim_sha256, tick: attestation.tick, verdict: 'agree' });
    expect(verify(null, Buffer.from(signed), keyOf(attestation.public_key), Buffer.from(attestation.signature, 'base64url'))).toBe(true);
  });

  it('agrees with a correct claim signed by another node and disagrees with a wrong value', async () => {
    const peer = foreignNode();
    const claim = {
      operators: ['KO42', 'NM19'],
      inputs: { m: 3, a: 2 },
      value: 6,
      unit: 'N',
      uncertainty: null,
      registry_version: 'other',
      tick: 5,
      phase: 0.5,
    };
    const agree = await attest({ claim, signature: peer.sign(claim), public_key: peer.public_key });
    expect(agree.body.verdict).toBe('agree');
    expect(agree.body.reason).toContain('another registry version');
    const wrong = { ...claim, value: 7 };
    const disagree = await attest({ claim: wrong, signature: peer.sign(wrong), public_key: peer.public_key });
    expect(disagree.body).toMatchObject({ verdict: 'disagree', signature_valid: true });
    expect(disagree.body.reason).toContain('value differs');
  });

  it('calls a claim unverifiable when the signature fails, an operator is unknown here or the inputs are refused', async () => {
    const peer = foreignNode();
    const claim = { operators: ['KO42', 'NM19'], inputs: { m: 3, a: 2 }, value: 6, unit: 'N', uncertainty: null, registry_version: 'x', tick: 5, phase: 0 };
    const tampered = await attest({ claim: { ...claim, value: 6.5 }, signature: peer.sign(claim), public_key: peer.public_key });
    expect(tampered.body).toMatchObject({ verdict: 'unverifiable', signature_valid: false, recomputed: null });
    const foreign = { ...claim, operators: ['KO42', 'XYZ77'] };
    const unknown = await attest({ claim: foreign, signature: peer.sign(foreign), public_key: peer.public_key });
    expect(unknown.body.verdict).toBe('unverifiable');
    expect(unknown.body.reason).toContain('XYZ77');
    const missing = { ...claim, inputs: { m: 3 } };
    const refused = await attest({ claim: missing, signature: peer.sign(missing), public_key: peer.public_key });
    expect(refused.body.verdict).toBe('unverifiable');
    expect(refused.body.reason).toContain('needs input "a"');
  });

  it('answers 400 for a public key that is not an Ed25519 key', async () => {
    const res = await attest({ claim: { value: 1 }, signature: 'abc', public_key: 'not-a-key' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('Ed25519 public key');
  });
});
