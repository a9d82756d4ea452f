/**
 * Keeps the first `cap` bytes written to a stream and counts the rest. The child keeps writing into a
 * pipe that is always drained (stopping the read would block it, and killing it on a byte count still
 * lets hundreds of KB through), so the cap is applied to what is kept, never to what is read.
 */
export class ByteCapture {
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #total = 0;

  constructor(readonly cap: number) {}

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    const room = this.cap - this.#kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.#chunks.push(part);
    this.#kept += part.length;
  }

  get truncated(): boolean {
    return this.#total > this.#kept;
  }

  get totalBytes(): number {
    return this.#total;
  }

  /** The kept bytes as text; a character cut by the cap is dropped whole rather than mangled. */
  text(): string {
    const bytes = Buffer.concat(this.#chunks, this.#kept);
    return (this.truncated ? bytes.subarray(0, utf8Boundary(bytes)) : bytes).toString('utf8');
  }
}

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
export function utf8Boundary(bytes: Buffer): number {
  const i = bytes.length;
  // Walk back over at most 3 continuation bytes to the lead byte of the last sequence.
  let back = 0;
  while (back < 3 && i - back - 1 >= 0 && (bytes[i - back - 1]! & 0xc0) === 0x80) back++;
  const lead = i - back - 1;
  if (lead < 0) return i;
  const b = bytes[lead]!;
  const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return back + 1 >= need ? i : lead;
}
