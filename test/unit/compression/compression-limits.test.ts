import { describe, expect, it } from 'vitest';
import {
  COMPRESSION_GATE,
  createCompressionService,
  LIMITED_MAX_INPUT_BYTES,
  type Codec,
  type Requester,
} from '../../../src/domain/compression/compression.service.js';
import { createWorkGate } from '../../../src/domain/compression/work-gate.js';
import { ANONYMOUS, type Caller } from '../../../src/domain/identity/caller.js';

/** A codec whose jobs finish only when the test says so: it counts what is on the "thread pool". */
function heldCodec() {
  const pending: Array<() => void> = [];
  let started = 0;
  const hold = (buf: Buffer): Promise<Buffer> => {
    started++;
    return new Promise((resolve) => pending.push(() => resolve(Buffer.from(buf))));
  };
  const codec: Codec = { brotli: hold, unbrotli: hold, gzip: hold, gunzip: hold };
  return {
    codec,
    started: () => started,
    running: () => pending.length,
    finishOne: async () => {
      pending.shift()!();
      // Let the finished call settle and the next one start.
      for (let i = 0; i < 10; i++) await Promise.resolve();
    },
  };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};
const anonymous = (ip: string): Requester => ({ caller: ANONYMOUS, clientIp: ip });
const keyed = (uid: string, rateTier?: string): Requester => ({
  caller: { uid, credential: 'user-key', ...(rateTier ? { rateTier } : {}) } as Caller,
});
const REQ = { data: 'hello', encoding: 'utf8', algorithm: 'gzip' } as const;

describe('compression limits for anonymous and free callers', () => {
  it('refuses brotli 10 and 11 to anonymous and free-tier callers with a message naming the way out, and runs them for a key', async () => {
    const service = createCompressionService();
    for (const who of [anonymous('10.0.0.1'), keyed('ufree', 'free')]) {
      for (const level of [10, 11]) {
        await expect(service.compress({ ...REQ, algorithm: 'brotli', level }, who)).rejects.toMatchObject({
          code: 'VALIDATION_FAILED',
          message: expect.stringMatching(/needs an API key.*levels 1 to 9/),
        });
        await expect(service.compress({ ...REQ, algorithm: 'auto', level }, who)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      }
      await expect(service.compress({ ...REQ, algorithm: 'brotli', level: 9 }, who)).resolves.toMatchObject({ ok: true });
    }
    await expect(service.compress({ ...REQ, algorithm: 'brotli', level: 11 }, keyed('upaid'))).resolves.toMatchObject({ ok: true, algorithm: 'brotli' });
  });

  it('refuses anonymous input above the smaller size limit with 413, and takes it from a key', async () => {
    const service = createCompressionService();
    const big = { ...REQ, data: 'a'.repeat(LIMITED_MAX_INPUT_BYTES + 1) };
    await expect(service.compress(big, anonymous('10.0.0.1'))).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringMatching(/send an API key/),
    });
    await expect(service.compress(big, keyed('upaid'))).resolves.toMatchObject({ original_bytes: LIMITED_MAX_INPUT_BYTES + 1 });
  });
});

describe('the compression gate', () => {
  it('runs at most two zlib jobs at once, queues eight, and refuses the next call with RATE_LIMITED', async () => {
    const held = heldCodec();
    const service = createCompressionService({ codec: held.codec });
    const { running, waiting } = COMPRESSION_GATE;
    const calls = Array.from({ length: running + waiting }, (_, i) => service.compress(REQ, anonymous(`10.0.0.${i}`)));
    await settle();
    expect(held.started()).toBe(running);
    await expect(service.compress(REQ, anonymous('10.0.1.1'))).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/Compression is busy \(2 running, 8 waiting\)/),
      details: { retry_after_s: 1 },
    });
    // Decompression and analysis take the same slots.
    await expect(service.analyze({ data: 'x', encoding: 'utf8' }, anonymous('10.0.1.2'))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await held.finishOne();
    expect(held.started()).toBe(running + 1);
    expect(held.running()).toBe(running);
    while (held.running() > 0) await held.finishOne();
    await expect(Promise.all(calls)).resolves.toHaveLength(running + waiting);
    expect(held.started()).toBe(running + waiting);
  });

  it('lets one caller hold at most two calls running or waiting', async () => {
    const held = heldCodec();
    const service = createCompressionService({ codec: held.codec });
    const mine = [service.compress(REQ, anonymous('10.0.0.9')), service.compress(REQ, anonymous('10.0.0.9'))];
    await settle();
    await expect(service.compress(REQ, anonymous('10.0.0.9'))).rejects.toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/per caller/) });
    const other = service.compress(REQ, keyed('uother'));
    await settle();
    expect(held.started()).toBe(2);
    while (held.running() > 0) await held.finishOne();
    await Promise.all([...mine, other]);
    expect(held.started()).toBe(3);
  });

  it('drops a waiting call whose caller went away, without starting its job', async () => {
    const gate = createWorkGate({ running: 1, waiting: 4, perHolder: 4 });
    let release!: () => void;
    const first = gate.run('a', () => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    let started = false;
    const waiting = gate.run('b', async () => void (started = true), controller.signal);
    await settle();
    expect(gate.load()).toEqual({ running: 1, waiting: 1 });
    controller.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    expect(gate.load()).toEqual({ running: 1, waiting: 0 });
    release();
    await first;
    expect(started).toBe(false);
    expect(gate.load()).toEqual({ running: 0, waiting: 0 });
  });
});
