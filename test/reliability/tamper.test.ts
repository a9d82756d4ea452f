import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateHashOf, type ChainRow } from '../../src/domain/chain/hash-chain.js';
import { transitionHash, wholeTransition } from '../../src/domain/contracts/contract-runtime.js';
import { createFakeClock, tickStartMs } from '../../src/lib/clock.js';
import { digestOf } from '../../src/lib/hash.js';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type RunningServer } from '../../src/server.js';
import { runVerify } from '../../src/verify-command.js';
import { tempDir, testConfig } from '../helpers/server.js';

/**
 * Tampering with what the node stores or hands out: stored chain rows, contract definitions, contract
 * transitions (and the receipts in them), receipts held by clients, and seals (signed checkpoints).
 * Each case edits a copy of one data directory (lowdb files) with the server stopped, starts a server
 * on it, and asks every verifier that applies: `pohc/validate`, contract `integrity`, contract
 * `verify`, `proof/verify`, and the offline verifier (`core-server verify`, run in-process). Each must
 * fail and name the first bad item.
 */
const T0 = 2_300_000_000;
const clock = createFakeClock(tickStartMs(T0));
const SLUG = 'tamper-m';
const EVENTS = 8;

let pristine: { dir: string; cleanup: () => Promise<void> };
const made = {
  key: '',
  contract: '',
  /** Seal of the machine (two stored checkpoints plus the live head), as `GET /api/chain/seal?slug=` gave it. */
  seal: undefined as any,
  receipt: undefined as any,
  computeInputs: { m: 2, a: 3 },
  computeOutput: undefined as any,
};
const cases: string[] = [];

interface Call {
  status: number;
  body: any;
}

async function serverOn(dir: string) {
  const running: RunningServer = await startHttpServer({ config: testConfig(dir), log: createLogger(process.env.TAMPER_LOG ? 'error' : 'silent'), clock });
  const call = async (method: string, p: string, body?: unknown): Promise<Call> => {
    const headers: Record<string, string> = { authorization: `Bearer ${made.key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${running.url}${p}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return { running, call };
}

const chainFile = (dir: string) => path.join(dir, 'logs', `chain%2F${SLUG}.jsonl`);
const transitionsFile = (dir: string) => path.join(dir, 'logs', `contracts%2F${SLUG}%2Ftransitions.jsonl`);
const checkpointsLog = (dir: string) => path.join(dir, 'logs', `checkpoints%2F${SLUG}.jsonl`);
const docFile = (dir: string, name: string) => path.join(dir, 'docs', `${name}.json`);

const linesOf = async (file: string) => (await readFile(file, 'utf8')).trimEnd().split('\n');
const writeLines = (file: string, lines: string[]) => writeFile(file, lines.join('\n') + '\n');
async function editRows(file: string, edit: (rows: any[]) => any[]) {
  const rows = (await linesOf(file)).map((l) => JSON.parse(l));
  await writeLines(
    file,
    edit(rows).map((r) => JSON.stringify(r)),
  );
}
/** Edits a lowdb collection on disk: its snapshot with its journal replayed, written back as the snapshot alone. */
async function editDoc(dir: string, name: string, edit: (records: Record<string, any>) => void) {
  const records = JSON.parse(await readFile(docFile(dir, name), 'utf8').catch(() => '{}'));
  const journal = `${docFile(dir, name)}l`;
  for (const line of (await readFile(journal, 'utf8').catch(() => '')).split('\n').filter(Boolean)) {
    const op = JSON.parse(line);
    if ('put' in op) records[op.put] = op.value;
    else delete records[op.delete];
  }
  edit(records);
  await writeFile(docFile(dir, name), JSON.stringify(records));
  await rm(journal, { force: true });
}

/** Rehashes chain rows from index `from` on, relinking each to the one before: a careful forger's edit. */
function rehashChain(rows: ChainRow[], from: number) {
  for (let i = from; i < rows.length; i++) {
    const { state_hash: _old, ...rest } = rows[i]!;
    if (i > 0) rest.prev_hash = rows[i - 1]!.state_hash;
    rows[i] = { ...rest, state_hash: stateHashOf(rest) } as ChainRow;
  }
  return rows;
}
function rehashTransitions(rows: any[], from: number) {
  for (let i = from; i < rows.length; i++) {
    if (i > 0) rows[i].prev_hash = rows[i - 1].state_hash;
    rows[i].state_hash = transitionHash(wholeTransition(rows[i]));
  }
  return rows;
}

/** Copies the pristine data directory, applies `edit`, starts a server on the copy and runs `check`. */
async function tampered(
  name: string,
  edit: (dir: string) => Promise<void>,
  check: (call: (m: string, p: string, b?: unknown) => Promise<Call>, dir: string) => Promise<void>,
) {
  cases.push(name);
  const copy = await tempDir('core-tamper-');
  try {
    await cp(pristine.dir, copy.dir, { recursive: true });
    await edit(copy.dir);
    const server = await serverOn(copy.dir);
    try {
      await check(server.call, copy.dir);
    } finally {
      await server.running.stop(500);
    }
  } finally {
    await copy.cleanup();
  }
}

/** `core-server verify` on the given files (written into `dir` when given as values). */
async function offline(dir: string, files: Record<string, unknown>) {
  const names: string[] = [];
  for (const [name, value] of Object.entries(files)) {
    const file = path.isAbsolute(name) ? name : path.join(dir, name);
    if (value !== null) await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
    names.push(file);
  }
  let out = '';
  const code = await runVerify(names, (t) => void (out += t));
  return { code, out };
}

const validate = (call: (m: string, p: string) => Promise<Call>) => call('GET', `/api/chain/${SLUG}/pohc/validate`);
const contractBase = () => `/api/chain/${SLUG}/contracts/${made.contract}`;

beforeAll(async () => {
  pristine = await tempDir('core-tamper-src-');
  const { running, call } = await serverOn(pristine.dir);
  try {
    const minted = await fetch(`${running.url}/api/demo-key/mint`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    made.key = ((await minted.json()) as { key: string }).key;
    expect((await call('POST', '/api/chain/state-machines', { slug: SLUG, is_public: true })).status).toBe(200);
    for (let i = 0; i < EVENTS; i++) {
      clock.advance(777);
      expect((await call('POST', `/api/chain/${SLUG}/event`, { type: 'reading', payload: { i } })).status).toBe(200);
    }
    // A contract whose every fire runs KO42, so each transition row carries a receipt.
    const created = await call('POST', `/api/chain/${SLUG}/contracts`, {
      definition: {
        name: 'beat',
        states: { running: { initial: true }, stopped: { terminal: true } },
        transitions: [
          { from: 'running', to: 'running', operator: 'KO42', trigger: { kind: 'every', every_ticks: 1 } },
          { from: 'running', to: 'stopped', operator: 'KO42', condition: 'input.stop == true' },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    made.contract = created.body.contract.id;
    for (let k = 0; k < 5; k++) {
      clock.advance(777);
      await running.core.services.contracts.scheduler.runDue();
      await running.core.services.contracts.settled();
    }
    // Paused, so no fire lands in a tampered copy when it starts.
    expect((await call('POST', `${contractBase()}/pause`, {})).status).toBe(200);
    const verified = await call('POST', `${contractBase()}/verify`);
    expect(verified.body).toMatchObject({ valid: true, total_transitions: 5 });
    // Two stored checkpoints, the second at the head.
    clock.advance(777);
    await running.core.services.checkpoints.checkpoint(SLUG);
    clock.advance(777);
    expect((await call('POST', `/api/chain/${SLUG}/event`, { type: 'reading', payload: { last: true } })).status).toBe(200);
    await running.core.services.checkpoints.checkpoint(SLUG);
    made.seal = (await call('GET', `/api/chain/seal?slug=${SLUG}&limit=10`)).body;
    expect(made.seal.checkpoints.length).toBeGreaterThanOrEqual(2);
    const computed = await call('POST', '/api/compute', { operators: ['NM19'], inputs: made.computeInputs });
    expect(computed.status).toBe(200);
    made.receipt = computed.body.receipt;
    made.computeOutput = { value: computed.body.value, unit: computed.body.unit };
    expect((await validate(call)).body).toMatchObject({ valid: true });
  } finally {
    await running.stop(500);
  }
});

afterAll(async () => {
  await pristine?.cleanup();
  if (process.env.TAMPER_REPORT) console.log(JSON.stringify({ cases: cases.length, names: cases }, null, 1));
});

describe('stored chain rows', () => {
  it('an untouched copy verifies everywhere (the baseline the cases below break)', async () => {
    await tampered(
      'baseline',
      async () => undefined,
      async (call, dir) => {
        expect((await validate(call)).body).toMatchObject({ valid: true, broken_seq: null, checkpoint: { matches: true } });
        const { code, out } = await offline(dir, { [chainFile(dir)]: null, 'seal.json': made.seal });
        expect(out).toContain('VERIFIED');
        expect(code).toBe(0);
      },
    );
  });

  it('an altered field of row 3 is named by validate and by the offline verifier', async () => {
    await tampered(
      'chain: alter a field',
      (dir) => editRows(chainFile(dir), (rows) => ((rows[3].payload_digest = 'f'.repeat(64)), rows)),
      async (call, dir) => {
        expect((await validate(call)).body).toMatchObject({ valid: false, broken_seq: 3, count: 3 });
        const { code, out } = await offline(dir, { [chainFile(dir)]: null });
        expect(code).toBe(1);
        expect(out).toMatch(/first broken row: seq 3 /);
      },
    );
  });

  it('row 3 edited into invalid JSON: the log still opens and validate names row 3; the offline verifier names its line', async () => {
    await tampered(
      'chain: row made invalid JSON',
      async (dir) => {
        const lines = await linesOf(chainFile(dir));
        lines[3] = lines[3]!.slice(0, -7);
        await writeLines(chainFile(dir), lines);
      },
      async (call, dir) => {
        const res = await validate(call);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body).toMatchObject({ valid: false, broken_seq: 3, count: 3 });
        // Reads keep working around it.
        const activity = await call('GET', `/api/chain/${SLUG}/activity?limit=100`);
        expect(activity.status, JSON.stringify(activity.body)).toBe(200);
        const { code, out } = await offline(dir, { [chainFile(dir)]: null });
        expect(code).toBe(1);
        expect(out).toMatch(/line 4 is not JSON/);
      },
    );
  });

  it('a deleted row 3 is named by validate (row 4 stands where 3 was) and by the offline verifier (the gap)', async () => {
    await tampered(
      'chain: delete a row',
      (dir) => editRows(chainFile(dir), (rows) => rows.filter((_, i) => i !== 3)),
      async (call, dir) => {
        expect((await validate(call)).body).toMatchObject({ valid: false, broken_seq: 3, count: 3 });
        expect((await call('GET', `/api/chain/${SLUG}/activity?limit=100`)).status).toBe(200);
        const { code, out } = await offline(dir, { [chainFile(dir)]: null });
        expect(code).toBe(1);
        expect(out).toMatch(/rows are missing between seq 2 and seq 4/);
      },
    );
  });

  it('rows 3 and 4 swapped are named by validate (position 3) and by the offline verifier (out of order)', async () => {
    await tampered(
      'chain: reorder two rows',
      (dir) => editRows(chainFile(dir), (rows) => [...rows.slice(0, 3), rows[4], rows[3], ...rows.slice(5)]),
      async (call, dir) => {
        expect((await validate(call)).body).toMatchObject({ valid: false, broken_seq: 3, count: 3 });
        expect((await call('GET', `/api/chain/${SLUG}/activity?limit=100`)).status).toBe(200);
        const { code, out } = await offline(dir, { [chainFile(dir)]: null });
        expect(code).toBe(1);
        expect(out).toMatch(/entry 5 holds seq 3 after seq 4: the rows were reordered/);
      },
    );
  });

  it('row 3 altered and rehashed (its own hash made consistent) breaks the link at row 4', async () => {
    await tampered(
      'chain: alter and rehash one row',
      (dir) =>
        editRows(chainFile(dir), (rows) => {
          rows[3].payload_digest = 'e'.repeat(64);
          const { state_hash: _h, ...rest } = rows[3];
          rows[3].state_hash = stateHashOf(rest);
          return rows;
        }),
      async (call, dir) => {
        expect((await validate(call)).body).toMatchObject({ valid: false, broken_seq: 4, count: 4, reason: expect.stringMatching(/prev_hash/) });
        const { code, out } = await offline(dir, { [chainFile(dir)]: null });
        expect(code).toBe(1);
        expect(out).toMatch(/first broken row: seq 4 /);
      },
    );
  });

  it('the whole history from row 3 rewritten and relinked is caught only by the signed checkpoint and the seal', async () => {
    await tampered(
      'chain: rewrite history consistently',
      (dir) => editRows(chainFile(dir), (rows) => ((rows[3].payload_digest = 'd'.repeat(64)), rehashChain(rows, 3))),
      async (call, dir) => {
        const res = (await validate(call)).body;
        expect(res).toMatchObject({ valid: false, checkpoint: { matches: false }, reason: expect.stringMatching(/history was rewritten/) });
        expect(res.broken_seq).toBe(res.checkpoint.seq);
        const { code, out } = await offline(dir, { [chainFile(dir)]: null, 'seal.json': made.seal });
        expect(code).toBe(1);
        expect(out).toMatch(/seq \d+ has a different hash than the node signed/);
      },
    );
  });

  it('the last row deleted is caught by the signed checkpoint and by the seal', async () => {
    await tampered(
      'chain: delete the last row',
      (dir) => editRows(chainFile(dir), (rows) => rows.slice(0, -1)),
      async (call, dir) => {
        const res = (await validate(call)).body;
        expect(res).toMatchObject({ valid: false, reason: expect.stringMatching(/rows were removed/) });
        const { code, out } = await offline(dir, { [chainFile(dir)]: null, 'seal.json': made.seal });
        expect(code).toBe(1);
        expect(out).toMatch(/rows are missing at the end/);
      },
    );
  });
});

describe('contract definitions', () => {
  it('an altered stored definition fails integrity', async () => {
    await tampered(
      'contract: alter the definition',
      (dir) => editDoc(dir, 'contracts', (records) => void (records[made.contract].definition.transitions[0].trigger.every_ticks = 1000)),
      async (call) => {
        expect((await call('GET', `${contractBase()}/integrity`)).body).toMatchObject({ match: false });
      },
    );
  });

  it('an altered definition with its stored hash recomputed still fails integrity (the version log keeps the signed hash)', async () => {
    await tampered(
      'contract: alter the definition and its hash',
      (dir) =>
        editDoc(dir, 'contracts', (records) => {
          const record = records[made.contract];
          record.definition.transitions[0].trigger.every_ticks = 1000;
          record.integrity_hash = digestOf(record.definition);
        }),
      async (call) => {
        expect((await call('GET', `${contractBase()}/integrity`)).body).toMatchObject({ match: false });
      },
    );
  });
});

describe('contract version log', () => {
  it('an altered definition in the version log fails integrity', async () => {
    await tampered(
      'contract: alter the version log',
      (dir) => editRows(path.join(dir, 'logs', `contracts%2F${SLUG}%2Fversions.jsonl`), (rows) => ((rows[0].definition.name = 'forged'), rows)),
      async (call) => {
        expect((await call('GET', `${contractBase()}/integrity`)).body).toMatchObject({ match: false, version_hash: null });
      },
    );
  });
});

describe('contract transitions and the receipts in them', () => {
  it('an altered transition row is named by contract verify', async () => {
    await tampered(
      'transitions: alter a row',
      (dir) => editRows(transitionsFile(dir), (rows) => ((rows[2].to_state = 'stopped'), rows)),
      async (call) => {
        expect((await call('POST', `${contractBase()}/verify`)).body).toMatchObject({
          valid: false,
          broken_at: `${made.contract}:3`,
          reason: expect.stringMatching(/state_hash/),
        });
      },
    );
  });

  it('a receipt altered inside a row, with the row rehashed and relinked, is named by contract verify', async () => {
    await tampered(
      'transitions: alter a receipt and rehash',
      (dir) =>
        editRows(transitionsFile(dir), (rows) => {
          rows[2].receipt.output_sha256 = 'c'.repeat(64);
          rows[2].proof_digest = digestOf(rows[2].receipt);
          return rehashTransitions(rows, 2);
        }),
      async (call) => {
        expect((await call('POST', `${contractBase()}/verify`)).body).toMatchObject({
          valid: false,
          broken_at: `${made.contract}:3`,
          reason: expect.stringMatching(/receipt/),
        });
      },
    );
  });

  it('a deleted transition row is named by contract verify (the row now in its place)', async () => {
    await tampered(
      'transitions: delete a row',
      (dir) => editRows(transitionsFile(dir), (rows) => rows.filter((_, i) => i !== 2)),
      async (call) => {
        const res = (await call('POST', `${contractBase()}/verify`)).body;
        expect(res).toMatchObject({ valid: false });
        // Row 3 is gone; row 4 now stands in its place.
        expect(res.broken_at).toBe(`${made.contract}:4`);
      },
    );
  });

  it('two transition rows swapped are named by contract verify', async () => {
    await tampered(
      'transitions: reorder two rows',
      (dir) => editRows(transitionsFile(dir), (rows) => [...rows.slice(0, 2), rows[3], rows[2], ...rows.slice(4)]),
      async (call) => {
        const res = (await call('POST', `${contractBase()}/verify`)).body;
        expect(res).toMatchObject({ valid: false });
        // The first row out of place: row 4, stored where row 3 was.
        expect(res.broken_at).toBe(`${made.contract}:4`);
      },
    );
  });

  it('a transition row edited into invalid JSON leaves the contract readable and fails verify', async () => {
    await tampered(
      'transitions: row made invalid JSON',
      async (dir) => {
        const lines = await linesOf(transitionsFile(dir));
        lines[2] = lines[2]!.slice(0, -9);
        await writeLines(transitionsFile(dir), lines);
      },
      async (call) => {
        expect((await call('GET', contractBase())).status).toBe(200);
        const res = (await call('POST', `${contractBase()}/verify`)).body;
        expect(res).toMatchObject({ valid: false });
        // The unreadable row has no contract id left, so the break shows at the row after it.
        expect(res.broken_at).toBe(`${made.contract}:4`);
      },
    );
  });
});

describe('receipts held by a client', () => {
  /** One character changed: what a forger flipping a value does; proof/verify then finds which field. */
  const flip = (v: string, i = 5) => v.slice(0, i) + (v[i] === '0' ? '1' : '0') + v.slice(i + 1);
  it.each([
    ['output_sha256', (r: any) => (r.output_sha256 = flip(r.output_sha256))],
    ['input_sha256', (r: any) => (r.input_sha256 = flip(r.input_sha256))],
    ['operator_chain', (r: any) => (r.operator_chain = r.operator_chain.map((op: string) => (op === 'NM19' ? 'NM18' : op)))],
    ['tick', (r: any) => (r.tick -= 1)],
    ['hmac', (r: any) => (r.hmac = flip(r.hmac))],
  ])('an altered %s gets a verdict from proof/verify (valid: false) naming that field', async (field, alter) => {
    await tampered(
      `receipt: alter ${field}`,
      async () => undefined,
      async (call) => {
        const fresh = await call('POST', '/api/proof/verify', { receipt: made.receipt });
        expect(fresh.status).toBe(200);
        const receipt = structuredClone(made.receipt);
        alter(receipt);
        const res = await call('POST', '/api/proof/verify', { receipt });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ valid: false, failed: { field } });
        expect(res.body.checks).not.toContain('hmac');
      },
    );
  });

  it('a digest replaced outright is named when the verifier is given the inputs and the output', async () => {
    await tampered(
      'receipt: replace the output digest',
      async () => undefined,
      async (call) => {
        const receipt = { ...made.receipt, output_sha256: 'b'.repeat(64) };
        const bare = await call('POST', '/api/proof/verify', { receipt });
        expect(bare.status).toBe(200);
        expect(bare.body).toMatchObject({ valid: false, failed: { check: 'hmac' } });
        expect(bare.body.reason).not.toMatch(/more than one place/);
        const res = await call('POST', '/api/proof/verify', { receipt, inputs: made.computeInputs, output: made.computeOutput });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ valid: false, failed: { check: 'output_sha256', field: 'output_sha256' } });
      },
    );
  });
});

describe('seals (signed checkpoints)', () => {
  it('an altered checkpoint in a seal is named by the offline verifier', async () => {
    await tampered(
      'seal: alter a checkpoint',
      async () => undefined,
      async (_call, dir) => {
        const seal = structuredClone(made.seal);
        seal.checkpoints[1].head_hash = '0'.repeat(64);
        const { code, out } = await offline(dir, { 'seal.json': seal });
        expect(code).toBe(1);
        expect(out).toMatch(/checkpoint 1 \(tamper-m seq \d+\) has a signature that does not verify/);
        expect(out).not.toMatch(/checkpoint 0 /);
      },
    );
  });

  it('a checkpoint deleted from a seal, or two reordered, fail the seal signature', async () => {
    await tampered(
      'seal: delete / reorder checkpoints',
      async () => undefined,
      async (_call, dir) => {
        const dropped = structuredClone(made.seal);
        dropped.checkpoints.splice(0, 1);
        const swapped = structuredClone(made.seal);
        swapped.checkpoints.reverse();
        for (const seal of [dropped, swapped]) {
          const { code, out } = await offline(dir, { 'seal.json': seal });
          expect(code).toBe(1);
          expect(out).toMatch(/the artifact signature does not verify/);
        }
      },
    );
  });

  it('a stored checkpoint altered on disk fails validate at its seq, and the seal then served names it', async () => {
    await tampered(
      'seal: alter the stored checkpoints',
      async (dir) => {
        await editDoc(dir, 'checkpoints', (records) => void (records[SLUG].head_hash = '1'.repeat(64)));
        await editRows(checkpointsLog(dir), (rows) => ((rows[0].head_hash = '1'.repeat(64)), rows));
      },
      async (call, dir) => {
        const res = (await validate(call)).body;
        expect(res).toMatchObject({ valid: false, checkpoint: { matches: false } });
        expect(res.broken_seq).toBe(res.checkpoint.seq);
        const served = (await call('GET', `/api/chain/seal?slug=${SLUG}&limit=10`)).body;
        const { code, out } = await offline(dir, { 'seal.json': served });
        expect(code).toBe(1);
        expect(out).toMatch(/checkpoint 0 \(tamper-m seq \d+\) has a signature that does not verify/);
      },
    );
  });
});
