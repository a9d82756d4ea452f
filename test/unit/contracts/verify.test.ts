import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeStreamName } from '../../../src/storage/lowdb/stream-names.js';
import { harness, selfLoop, T0, type Harness } from './harness.js';

const open: Harness[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

describe('proof chain verification', () => {
  it('accepts an untouched history and names the first row edited on disk', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 1 }));
    await h.walkTo(T0 + 3);
    const record = await h.core.services.contracts.core.find('m1', id);
    expect(await h.core.services.contracts.audit.verify(record)).toMatchObject({ valid: true, broken_at: null, total_transitions: 3 });
    await h.core.close();
    const file = path.join(h.dir, 'logs', `${encodeStreamName('contracts/m1/transitions')}.jsonl`);
    const lines = readFileSync(file, 'utf8').split('\n');
    const second = JSON.parse(lines[1]!);
    second.input = { forged: true };
    lines[1] = JSON.stringify(second);
    writeFileSync(file, lines.join('\n'));
    await h.restart();
    const verdict = await h.core.services.contracts.audit.verify(await h.core.services.contracts.core.find('m1', id));
    expect(verdict).toMatchObject({ valid: false, broken_at: `${id}:2`, reason: 'row content does not match its state_hash' });
  });

  it('checks each row receipt against its proof digest and the node key', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 1 }));
    await h.walkTo(T0 + 1);
    const [row] = await h.rows(id);
    expect(row!.receipt).toMatchObject({ kind: 'compute', operator_chain: ['KO42'] });
    expect(row!.proof_digest).toMatch(/^[0-9a-f]{64}$/);
    const verdict = await h.core.services.contracts.audit.verify(await h.core.services.contracts.core.find('m1', id));
    expect(verdict.valid).toBe(true);
  });

  it('stores rows without what their type, tick and position say again, reads them whole, and reads rows stored whole the same', async () => {
    const h = await harness();
    open.push(h);
    const id = await h.deploy(selfLoop({ kind: 'every', every_ticks: 1 }));
    await h.walkTo(T0 + 3);
    const before = await h.rows(id);
    expect(before.map((r) => [r.id, r.contract_id, r.tick_number === r.tick])).toEqual([1, 2, 3].map((n) => [`${id}:${n}`, id, true]));
    await h.core.close();
    const file = path.join(h.dir, 'logs', `${encodeStreamName('contracts/m1/transitions')}.jsonl`);
    const lines = readFileSync(file, 'utf8').split('\n');
    const stored = lines.filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const row of stored) for (const field of ['id', 'contract_id', 'tick_number']) expect(row).not.toHaveProperty(field);
    // The second row as a build before the compact form stored it: every field written out.
    lines[1] = JSON.stringify({ ...stored[1], id: `${id}:2`, contract_id: id, tick_number: stored[1]!['tick'] });
    writeFileSync(file, lines.join('\n'));
    await h.restart();
    expect(await h.rows(id)).toEqual(before);
    const verdict = await h.core.services.contracts.audit.verify(await h.core.services.contracts.core.find('m1', id));
    expect(verdict).toMatchObject({ valid: true, total_transitions: 3 });
  });
});
