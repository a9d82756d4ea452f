/** Signatures of common formats, checked in order; `at` is the byte offset of the magic. */
const MAGIC: Array<{ type: string; bytes: number[] | string; at?: number }> = [
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', bytes: 'GIF87a' },
  { type: 'image/gif', bytes: 'GIF89a' },
  { type: 'image/bmp', bytes: 'BM' },
  { type: 'image/tiff', bytes: [0x49, 0x49, 0x2a, 0x00] },
  { type: 'image/tiff', bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { type: 'image/x-icon', bytes: [0x00, 0x00, 0x01, 0x00] },
  { type: 'application/pdf', bytes: '%PDF-' },
  { type: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'application/gzip', bytes: [0x1f, 0x8b] },
  { type: 'application/x-bzip2', bytes: 'BZh' },
  { type: 'application/x-xz', bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { type: 'application/zstd', bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { type: 'application/x-7z-compressed', bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { type: 'application/vnd.sqlite3', bytes: 'SQLite format 3\u0000' },
  { type: 'application/wasm', bytes: [0x00, 0x61, 0x73, 0x6d] },
  { type: 'application/x-elf', bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { type: 'application/x-msdownload', bytes: 'MZ' },
  { type: 'application/x-tar', bytes: 'ustar', at: 257 },
  { type: 'audio/mpeg', bytes: 'ID3' },
  { type: 'audio/ogg', bytes: 'OggS' },
  { type: 'audio/flac', bytes: 'fLaC' },
  { type: 'font/woff', bytes: 'wOFF' },
  { type: 'font/woff2', bytes: 'wOF2' },
];

function matches(buf: Uint8Array, sig: number[] | string, at: number): boolean {
  const bytes = typeof sig === 'string' ? Array.from(sig, (c) => c.charCodeAt(0)) : sig;
  if (buf.length < at + bytes.length) return false;
  return bytes.every((b, i) => buf[at + i] === b);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text when they are valid UTF-8 without NUL bytes; undefined otherwise. */
export function asText(buf: Uint8Array): string | undefined {
  if (buf.includes(0)) return undefined;
  try {
    return decoder.decode(buf);
  } catch {
    return undefined;
  }
}

/** Guesses a media type from magic bytes, then from the text's shape. */
export function detectType(buf: Uint8Array, text: string | undefined): string {
  if (buf.length === 0) return 'application/x-empty';
  for (const m of MAGIC) if (matches(buf, m.bytes, m.at ?? 0)) return m.type;
  const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
  if (matches(buf, ascii('RIFF'), 0) && matches(buf, ascii('WEBP'), 8)) return 'image/webp';
  if (matches(buf, ascii('RIFF'), 0) && matches(buf, ascii('WAVE'), 8)) return 'audio/wav';
  if (matches(buf, ascii('ftyp'), 4)) return 'video/mp4';
  if (text === undefined) return 'application/octet-stream';
  const head = text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .slice(0, 512)
    .toLowerCase();
  if (head.startsWith('{') || head.startsWith('[')) {
    try {
      JSON.parse(text);
      return 'application/json';
    } catch {
      /* not JSON after all */
    }
  }
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'image/svg+xml';
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'text/html';
  if (head.startsWith('<?xml')) return 'application/xml';
  if (head.startsWith('%!ps')) return 'application/postscript';
  if (head.startsWith('#!')) return 'text/x-script';
  if (looksLikeCsv(text)) return 'text/csv';
  return 'text/plain';
}

function looksLikeCsv(text: string): boolean {
  const lines = text
    .split(/\r?\n/)
    .filter((l) => l.length > 0)
    .slice(0, 20);
  if (lines.length < 2) return false;
  const commas = lines.map((l) => l.split(',').length - 1);
  return commas[0]! > 0 && commas.every((c) => c === commas[0]);
}
