import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { CoreError, errors } from '../../errors.js';
import { sha256Hex } from '../../lib/hash.js';
import { asText, detectType } from './detect-type.js';
import { createWorkGate, type WorkGate } from './work-gate.js';
import type { Caller } from '../identity/caller.js';

/** The zlib calls the service makes; each runs on a libuv pool thread. Tests give a controllable fake. */
export interface Codec {
  brotli(buf: Buffer, options: zlib.BrotliOptions): Promise<Buffer>;
  unbrotli(buf: Buffer, options: zlib.BrotliOptions): Promise<Buffer>;
  gzip(buf: Buffer, options: zlib.ZlibOptions): Promise<Buffer>;
  gunzip(buf: Buffer, options: zlib.ZlibOptions): Promise<Buffer>;
}

const ZLIB: Codec = {
  brotli: promisify(zlib.brotliCompress),
  unbrotli: promisify(zlib.brotliDecompress),
  gzip: promisify(zlib.gzip),
  gunzip: promisify(zlib.gunzip),
};

export type Algorithm = 'brotli' | 'gzip';
export type Encoding = 'utf8' | 'base64';

/** Limits: inputs above MAX_INPUT_BYTES and outputs above MAX_OUTPUT_BYTES are refused with 413. */
export const MAX_INPUT_BYTES = 1024 * 1024;
export const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
/**
 * What an anonymous or free-tier caller may ask of `compress`: brotli 10 and 11 cost 5 to 20 times
 * level 9 (about 3 s of a pool thread for 1 MiB at 11), so they and inputs above 256 KiB need a key.
 */
export const LIMITED_MAX_LEVEL = 9;
export const LIMITED_MAX_INPUT_BYTES = 256 * 1024;
/**
 * Compression jobs on the thread pool at once, node-wide, and how many may wait: libuv's pool has 4
 * threads by default and file reads and writes need the others.
 */
export const COMPRESSION_GATE = { running: 2, waiting: 8, perHolder: 2 } as const;
/** Brotli's window: 2^20 bytes covers the largest input, and a larger one only costs memory. */
const BROTLI_WINDOW_BITS = 20;
/** How much of the input the analysis probe compresses. */
const PROBE_BYTES = 256 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$|^[A-Za-z0-9_-]*$/;

/** Who asks, for the limits and the fair share of the gate; in-process callers may omit it (no limits). */
export interface Requester {
  caller: Caller;
  clientIp?: string | undefined;
  /** The caller's abort signal, made on first use: only a call that has to wait needs it. */
  signal?: () => AbortSignal;
}

export interface CompressionService {
  compress(
    req: { data: string; encoding: Encoding; algorithm: Algorithm | 'auto'; level?: number | undefined },
    who?: Requester,
  ): Promise<{
    ok: true;
    algorithm: Algorithm;
    compressed: string;
    original_bytes: number;
    compressed_bytes: number;
    ratio: number;
    sha256: string;
  }>;
  decompress(
    req: { compressed: string; algorithm: Algorithm; sha256?: string | undefined; encoding: Encoding },
    who?: Requester,
  ): Promise<{
    ok: true;
    data: string;
    encoding: Encoding;
    bytes: number;
    sha256: string;
    verified: boolean;
  }>;
  analyze(
    req: { data: string; encoding: Encoding },
    who?: Requester,
  ): Promise<{
    ok: true;
    bytes: number;
    sha256: string;
    entropy_bits_per_byte: number;
    compressibility: number;
    estimated_ratio: number;
    detected_type: string;
    is_text: boolean;
  }>;
}

function tooLarge(message: string): CoreError {
  return new CoreError('PAYLOAD_TOO_LARGE', message);
}

/** Decodes `data`; base64 accepts the standard and URL-safe alphabets. */
export function decodeData(data: string, encoding: Encoding, field: string): Buffer {
  if (encoding === 'base64') {
    const compact = data.replace(/\s+/g, '');
    if (compact.length % 4 === 1 || !BASE64.test(compact)) throw errors.validation(`${field} is not valid base64`, { input: field });
    if ((compact.length * 3) / 4 > MAX_INPUT_BYTES + 3) throw tooLarge(`${field} decodes to more than ${MAX_INPUT_BYTES} bytes`);
    return Buffer.from(compact, /[-_]/.test(compact) ? 'base64url' : 'base64');
  }
  if (data.length > MAX_INPUT_BYTES) throw tooLarge(`${field} is longer than ${MAX_INPUT_BYTES} bytes`);
  const buf = Buffer.from(data, 'utf8');
  if (buf.length > MAX_INPUT_BYTES) throw tooLarge(`${field} is longer than ${MAX_INPUT_BYTES} bytes as UTF-8`);
  return buf;
}

/** Shannon entropy of the byte histogram, in bits per byte (0 for empty input). */
export function entropyOf(buf: Uint8Array): number {
  if (buf.length === 0) return 0;
  const counts = new Float64Array(256);
  for (let i = 0; i < buf.length; i++) counts[buf[i]!]!++;
  let h = 0;
  for (let b = 0; b < 256; b++) {
    const c = counts[b]!;
    if (c > 0) {
      const p = c / buf.length;
      h -= p * Math.log2(p);
    }
  }
  return Math.min(8, Math.max(0, h));
}

function run(codec: Codec, algorithm: Algorithm, buf: Buffer, level: number): Promise<Buffer> {
  if (algorithm === 'gzip') return codec.gzip(buf, { level: Math.min(level, 9) });
  return codec.brotli(buf, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: level,
      [zlib.constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_GENERIC,
    },
  });
}

/** Anonymous callers and keys of the `free` tier get the cheaper limits. */
function isLimited(who: Requester | undefined): boolean {
  return who !== undefined && (who.caller.credential === 'none' || who.caller.rateTier === 'free');
}

/** Whose share of the gate a call uses: the identity, else the client address. */
function holderOf(who: Requester | undefined): string {
  if (!who) return 'in-process';
  return who.caller.uid ? `uid:${who.caller.uid}` : who.clientIp ? `ip:${who.clientIp}` : 'anonymous';
}

/** Refuses what a limited caller may not ask, saying how to get more. */
function checkLimited(buf: Buffer, level: number | undefined): void {
  if (level !== undefined && level > LIMITED_MAX_LEVEL) {
    throw errors.validation(
      `Level ${level} needs an API key: anonymous and free-tier callers may use levels 1 to ${LIMITED_MAX_LEVEL} (send a key, e.g. from POST /api/demo-key/mint, for brotli 10 and 11)`,
      { input: 'level', max: LIMITED_MAX_LEVEL },
    );
  }
  if (buf.length > LIMITED_MAX_INPUT_BYTES) {
    throw tooLarge(
      `Anonymous and free-tier callers may compress at most ${LIMITED_MAX_INPUT_BYTES} bytes at once; send an API key for up to ${MAX_INPUT_BYTES}`,
    );
  }
}

export interface CompressionDeps {
  /** Bounds the zlib jobs on the thread pool; one gate per node. */
  gate?: WorkGate;
  codec?: Codec;
}

/**
 * Lossless compression through node:zlib. Same input, algorithm and level give the same bytes on the
 * same Node version; `auto` tries both and keeps the smaller (brotli on a tie). The default level is a
 * balance: gzip 6, brotli 6. Every zlib job passes the gate (see `COMPRESSION_GATE`).
 */
export function createCompressionService(deps: CompressionDeps = {}): CompressionService {
  const gate = deps.gate ?? createWorkGate(COMPRESSION_GATE);
  const codec = deps.codec ?? ZLIB;
  const gated = <T>(who: Requester | undefined, job: () => Promise<T>): Promise<T> => gate.run(holderOf(who), job, who?.signal);

  return {
    async compress({ data, encoding, algorithm, level }, who) {
      const buf = decodeData(data, encoding, 'data');
      if (algorithm === 'gzip' && level !== undefined && level > 9) throw errors.validation('gzip levels are 1 to 9; brotli takes 1 to 11', { input: 'level' });
      if (isLimited(who)) checkLimited(buf, level);
      const chosen = level ?? 6;
      const candidates: Algorithm[] = algorithm === 'auto' ? ['brotli', 'gzip'] : [algorithm];
      let best: { algorithm: Algorithm; out: Buffer } | undefined;
      for (const alg of candidates) {
        const out = await gated(who, () => run(codec, alg, buf, chosen));
        if (!best || out.length < best.out.length) best = { algorithm: alg, out };
      }
      const { algorithm: used, out } = best!;
      return {
        ok: true,
        algorithm: used,
        compressed: out.toString('base64'),
        original_bytes: buf.length,
        compressed_bytes: out.length,
        ratio: out.length / Math.max(1, buf.length),
        sha256: sha256Hex(buf),
      };
    },

    async decompress({ compressed, algorithm, sha256, encoding }, who) {
      const packed = decodeData(compressed, 'base64', 'compressed');
      let buf: Buffer;
      try {
        buf = await gated(who, () =>
          algorithm === 'gzip' ? codec.gunzip(packed, { maxOutputLength: MAX_OUTPUT_BYTES }) : codec.unbrotli(packed, { maxOutputLength: MAX_OUTPUT_BYTES }),
        );
      } catch (err) {
        if (err instanceof CoreError) throw err;
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
          throw tooLarge(`The data decompresses to more than ${MAX_OUTPUT_BYTES} bytes`);
        }
        throw errors.unprocessable(`compressed is not valid ${algorithm} data (${(err as Error).message}); check the algorithm`, { algorithm });
      }
      const digest = sha256Hex(buf);
      if (sha256 !== undefined && sha256.toLowerCase() !== digest) {
        throw errors.unprocessable('The restored bytes do not match the expected SHA-256', { field: 'sha256', expected: sha256.toLowerCase(), actual: digest });
      }
      let data: string;
      if (encoding === 'utf8') {
        const text = asText(buf);
        if (text === undefined) throw errors.unprocessable('The restored bytes are not valid UTF-8 text; ask for encoding "base64"', { encoding });
        data = text;
      } else data = buf.toString('base64');
      return { ok: true, data, encoding, bytes: buf.length, sha256: digest, verified: sha256 !== undefined };
    },

    async analyze({ data, encoding }, who) {
      const buf = decodeData(data, encoding, 'data');
      const text = asText(buf);
      // The estimate is a fast deflate probe of (a prefix of) the data, scaled towards what the slower
      // default levels reach: they gain most on compressible data and nothing on random bytes.
      const sample = buf.subarray(0, PROBE_BYTES);
      const probe = sample.length === 0 ? 1 : Math.min(1, (await gated(who, () => codec.gzip(sample, { level: 1 }))).length / sample.length);
      const entropy = entropyOf(buf);
      const estimated = Math.max(0.0005, probe * (0.8 + 0.2 * probe));
      return {
        ok: true,
        bytes: buf.length,
        sha256: sha256Hex(buf),
        entropy_bits_per_byte: entropy,
        compressibility: Math.max(0, Math.min(1, 1 - estimated)),
        estimated_ratio: estimated,
        detected_type: detectType(buf, text),
        is_text: text !== undefined,
      };
    },
  };
}
