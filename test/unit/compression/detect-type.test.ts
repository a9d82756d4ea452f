import { describe, expect, it } from 'vitest';
import { asText, detectType } from '../../../src/domain/compression/detect-type.js';
import { entropyOf } from '../../../src/domain/compression/compression.service.js';

const detect = (buf: Buffer) => detectType(buf, asText(buf));

describe('type detection and entropy', () => {
  it('recognises formats by their magic bytes', () => {
    expect(detect(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('image/jpeg');
    expect(detect(Buffer.from('%PDF-1.7\n'))).toBe('application/pdf');
    expect(detect(Buffer.from([0x1f, 0x8b, 8, 0]))).toBe('application/gzip');
    expect(detect(Buffer.from([0x50, 0x4b, 3, 4, 0]))).toBe('application/zip');
    expect(detect(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]))).toBe('image/webp');
    expect(detect(Buffer.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toBe('application/wasm');
  });

  it('tells text shapes apart and refuses invalid UTF-8 as text', () => {
    expect(detect(Buffer.from('{"a": 1}'))).toBe('application/json');
    expect(detect(Buffer.from('<!DOCTYPE html><html></html>'))).toBe('text/html');
    expect(detect(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('image/svg+xml');
    expect(detect(Buffer.from('a,b,c\n1,2,3\n4,5,6\n'))).toBe('text/csv');
    expect(detect(Buffer.from('plain words'))).toBe('text/plain');
    expect(asText(Buffer.from([0xc3, 0x28]))).toBeUndefined();
    expect(detect(Buffer.from([0xc3, 0x28, 0x01]))).toBe('application/octet-stream');
  });

  it('computes 0 bits for one repeated byte and 8 bits for all 256 byte values equally often', () => {
    expect(entropyOf(Buffer.alloc(100, 7))).toBe(0);
    expect(entropyOf(Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256)))).toBe(8);
  });
});
