import { z } from 'zod';
import { defineAction, defineTool, type ActionContext } from '../../src/registry/types.js';
import { Hex64 } from '../../src/registry/common-schemas.js';
import type { Algorithm as CompressionAlgorithm, Encoding as DataEncoding, Requester } from '../../src/domain/compression/compression.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

/** Who calls, for the compression limits; the abort signal is made only if the call has to wait. */
const requesterOf = (ctx: ActionContext): Requester => ({ caller: ctx.caller, clientIp: ctx.clientIp, signal: () => ctx.signal });

const Algorithm = wireShape<CompressionAlgorithm>()(z.enum(['brotli', 'gzip']));

/** No `.max` on payloads: the service answers 413 PAYLOAD_TOO_LARGE above its size limit. */
const Data = z.string().describe('The bytes to process: text as is, or base64 when `encoding` is "base64"');
const Encoding = wireShape<DataEncoding>()(z.enum(['utf8', 'base64']).default('utf8'));

export const compressTool = defineTool({
  name: 'core_compress',
  toolset: 'compute',
  title: 'Compression',
  description:
    "Lossless compression with brotli or gzip. `compress` returns base64 output, the ratio and the original's SHA-256; `decompress` restores it and checks the digest; `analyze` reports size, entropy per byte, estimated compressibility and detected type without compressing.",
  actions: [
    defineAction({
      id: 'compression.compress',
      action: 'compress',
      method: 'POST',
      path: '/api/compress',
      auth: 'public',
      area: 'compute',
      summary: 'Compresses text or base64 data; returns base64 output, sizes, ratio and the original SHA-256.',
      input: z.object({
        data: Data,
        encoding: Encoding,
        algorithm: z.enum(['brotli', 'gzip', 'auto']).default('auto').describe('"auto" tries both and keeps the smaller'),
        level: z.number().int().min(1).max(11).optional().describe('Compression level: gzip 1-9, brotli 1-11; default a balanced level'),
      }),
      output: z.object({
        ok: z.literal(true),
        algorithm: Algorithm.describe('Algorithm actually used'),
        compressed: z.string().describe('Compressed bytes, base64'),
        original_bytes: z.number().int().min(0),
        compressed_bytes: z.number().int().min(0),
        ratio: z.number().min(0).describe('compressed_bytes / original_bytes'),
        sha256: Hex64.describe('SHA-256 of the original bytes'),
      }),
      idempotent: true,
      handler: async (input, ctx) => ctx.services.compression.compress(input, requesterOf(ctx)),
    }),
    defineAction({
      id: 'compression.decompress',
      action: 'decompress',
      method: 'POST',
      path: '/api/decompress',
      auth: 'public',
      area: 'compute',
      summary: 'Decompresses base64 brotli or gzip data; checks it against the original SHA-256 when one is given.',
      input: z.object({
        compressed: z.string().min(1).describe('Base64, as `compress` returned it'),
        algorithm: Algorithm,
        sha256: Hex64.optional().describe('Expected SHA-256 of the original; a mismatch is refused with 422'),
        encoding: z.enum(['utf8', 'base64']).default('base64').describe('How to return the restored bytes; "utf8" only for valid UTF-8 text'),
      }),
      output: z.object({
        ok: z.literal(true),
        data: z.string().describe('The restored bytes in the requested encoding'),
        encoding: z.enum(['utf8', 'base64']),
        bytes: z.number().int().min(0),
        sha256: Hex64.describe('SHA-256 of the restored bytes'),
        verified: z.boolean().describe('True when a `sha256` was given and matched'),
      }),
      idempotent: true,
      handler: async (input, ctx) => ctx.services.compression.decompress(input, requesterOf(ctx)),
    }),
    defineAction({
      id: 'compression.analyze',
      action: 'analyze',
      method: 'POST',
      path: '/api/analyze',
      auth: 'public',
      area: 'compute',
      summary:
        'Reports how well data compresses: size, Shannon entropy per byte, compressibility estimated by a fast probe, and type detected from magic bytes or text shape.',
      input: z.object({ data: Data, encoding: Encoding }),
      output: z.object({
        ok: z.literal(true),
        bytes: z.number().int().min(0),
        sha256: Hex64,
        entropy_bits_per_byte: z.number().min(0).max(8).describe('Shannon entropy of the byte distribution'),
        compressibility: z.number().min(0).max(1).describe('Estimated fraction of size `compress` can save (1 - estimated_ratio)'),
        estimated_ratio: z.number().min(0).describe('Estimated compressed/original size ratio'),
        detected_type: z.string().describe('Media type guessed from content, e.g. "application/json", "image/png"'),
        is_text: z.boolean().describe('True when the bytes are valid UTF-8 text without NUL bytes'),
      }),
      idempotent: true,
      handler: async (input, ctx) => ctx.services.compression.analyze(input, requesterOf(ctx)),
    }),
  ],
});
