import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCompressionService, MAX_INPUT_BYTES } from '../../src/domain/compression/compression.service.js';
import { mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

const TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('compression.compress and compression.decompress (POST /api/compress, POST /api/decompress)', () => {
  it('round-trips text with gzip and brotli, verifying the original SHA-256', async () => {
    for (const algorithm of ['gzip', 'brotli'] as const) {
      const packed = await server.call('POST', '/api/compress', { body: { data: TEXT, algorithm } });
      expect(packed.status).toBe(200);
      expect(packed.body).toMatchObject({ algorithm, original_bytes: TEXT.length, sha256: sha(TEXT) });
      expect(packed.body.ratio).toBeLessThan(0.05);
      const restored = await server.call('POST', '/api/decompress', {
        body: { compressed: packed.body.compressed, algorithm, sha256: packed.body.sha256, encoding: 'utf8' },
      });
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({ data: TEXT, verified: true, bytes: TEXT.length });
    }
  });

  it('picks the smaller algorithm on auto and gives the same bytes twice', async () => {
    const a = await server.call('POST', '/api/compress', { body: { data: TEXT } });
    const b = await server.call('POST', '/api/compress', { body: { data: TEXT } });
    const gzip = await server.call('POST', '/api/compress', { body: { data: TEXT, algorithm: 'gzip' } });
    expect(a.body.compressed_bytes).toBeLessThanOrEqual(gzip.body.compressed_bytes);
    expect(b.body.compressed).toBe(a.body.compressed);
  });

  it('round-trips binary data given as base64', async () => {
    const bytes = randomBytes(3000);
    const packed = await server.call('POST', '/api/compress', { body: { data: bytes.toString('base64'), encoding: 'base64', algorithm: 'gzip', level: 9 } });
    const restored = await server.call('POST', '/api/decompress', { body: { compressed: packed.body.compressed, algorithm: 'gzip' } });
    expect(Buffer.from(restored.body.data, 'base64').equals(bytes)).toBe(true);
    expect(restored.body.verified).toBe(false);
  });

  it('refuses a digest mismatch, corrupt data, bad base64 and a gzip level above 9', async () => {
    const packed = await server.call('POST', '/api/compress', { body: { data: 'hello', algorithm: 'brotli' } });
    const wrong = await server.call('POST', '/api/decompress', { body: { compressed: packed.body.compressed, algorithm: 'brotli', sha256: sha('hullo') } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details).toMatchObject({ field: 'sha256', actual: sha('hello') });
    const corrupt = await server.call('POST', '/api/decompress', {
      body: { compressed: Buffer.from('not gzip at all').toString('base64'), algorithm: 'gzip' },
    });
    expect(corrupt.status).toBe(422);
    const badB64 = await server.call('POST', '/api/compress', { body: { data: '@@@', encoding: 'base64' } });
    expect(badB64.status).toBe(400);
    const level = await server.call('POST', '/api/compress', { body: { data: 'x', algorithm: 'gzip', level: 11 } });
    expect(level.status).toBe(400);
  });

  it('answers 413 for input over the limit and for data that decompresses beyond the output limit', async () => {
    const service = createCompressionService();
    await expect(service.compress({ data: 'a'.repeat(MAX_INPUT_BYTES + 1), encoding: 'utf8', algorithm: 'gzip' })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      status: 413,
    });
    const bomb = await service.compress({ data: Buffer.alloc(MAX_INPUT_BYTES).toString('base64'), encoding: 'base64', algorithm: 'gzip', level: 9 });
    // Nine copies of a 1 MiB zero block concatenated as gzip members restore to 9 MiB, over the 8 MiB cap.
    const nine = Buffer.concat(Array.from({ length: 9 }, () => Buffer.from(bomb.compressed, 'base64'))).toString('base64');
    await expect(service.decompress({ compressed: nine, algorithm: 'gzip', encoding: 'base64' })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const http = await server.call('POST', '/api/compress', { body: { data: 'a'.repeat(1_100_000) } });
    expect(http.status).toBe(413);
  });
});

describe('compression limits for anonymous callers (REST, MCP, core_http)', () => {
  const SLOW = { data: TEXT, algorithm: 'brotli', level: 11 };
  const REFUSAL = /Level 11 needs an API key/;

  it('refuses brotli 11 to an anonymous caller on every surface, and runs it for a key', async () => {
    const rest = await server.call('POST', '/api/compress', { body: SLOW });
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(REFUSAL) });
    const viaHttp = await server.call('POST', '/api/http', { body: { method: 'POST', path: '/api/compress', body: SLOW } });
    expect(viaHttp.status).toBe(400);
    expect(viaHttp.body.error.message).toMatch(REFUSAL);
    const mcp = await server.call('POST', '/api/mcp', {
      headers: { accept: 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'core_compress', arguments: { action: 'compress', ...SLOW } } },
    });
    expect(mcp.body.result.isError).toBe(true);
    expect(mcp.body.result.structuredContent.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(REFUSAL) });
    const { key } = await mintKey(server);
    const keyed = await server.call('POST', '/api/compress', { key, body: SLOW });
    expect(keyed.status).toBe(200);
    expect(keyed.body.algorithm).toBe('brotli');
  });

  it('refuses anonymous input over 256 KiB with 413 and takes it from a key', async () => {
    const big = { data: 'b'.repeat(300 * 1024), algorithm: 'gzip', level: 1 };
    const anonymous = await server.call('POST', '/api/compress', { body: big });
    expect(anonymous.status).toBe(413);
    expect(anonymous.body.error.message).toMatch(/send an API key/);
    const { key } = await mintKey(server);
    expect((await server.call('POST', '/api/compress', { key, body: big })).status).toBe(200);
  });
});

describe('compression.analyze (POST /api/analyze)', () => {
  it('reports size, entropy, compressibility and the detected type', async () => {
    const text = await server.call('POST', '/api/analyze', { body: { data: TEXT } });
    expect(text.body).toMatchObject({ bytes: TEXT.length, is_text: true, detected_type: 'text/plain', sha256: sha(TEXT) });
    expect(text.body.compressibility).toBeGreaterThan(0.9);
    const json = await server.call('POST', '/api/analyze', { body: { data: JSON.stringify({ a: [1, 2, 3] }) } });
    expect(json.body.detected_type).toBe('application/json');
    const random = await server.call('POST', '/api/analyze', { body: { data: randomBytes(20000).toString('base64'), encoding: 'base64' } });
    expect(random.body.entropy_bits_per_byte).toBeGreaterThan(7.9);
    expect(random.body.compressibility).toBeLessThan(0.02);
    expect(random.body.is_text).toBe(false);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const image = await server.call('POST', '/api/analyze', { body: { data: png.toString('base64'), encoding: 'base64' } });
    expect(image.body.detected_type).toBe('image/png');
    const empty = await server.call('POST', '/api/analyze', { body: { data: '' } });
    expect(empty.body).toMatchObject({ bytes: 0, entropy_bits_per_byte: 0, detected_type: 'application/x-empty' });
  });

  it('computes the Shannon entropy exactly: 2 bits per byte for four equally frequent bytes', async () => {
    const res = await server.call('POST', '/api/analyze', { body: { data: 'abcd'.repeat(64) } });
    expect(res.body.entropy_bits_per_byte).toBe(2);
  });
});
