import { genesisSeed, verifyChain, type ChainRow } from './hash-chain.js';
import { verifySeal, type Checkpoint, type SealArtifact, SEAL_FORMAT } from './checkpoint.js';

/**
 * Offline verification of what the server exports: a seal (`GET /api/chain/seal`), or a chain as JSON
 * lines (one row per line), a JSON array of rows, or the answer of `explore` / `activity` (`{ rows }`).
 * Pure: `core-server verify` reads the files and prints what these functions return.
 */

export type Artifact = { kind: 'seal'; seal: SealArtifact } | { kind: 'chain'; rows: ChainRow[]; slug: string | null; genesisTick: number | null };

/** Recognises the artifact in a file's text; throws with a readable message when it is none of them. */
export function parseArtifact(text: string): Artifact {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error('the file is empty');
  let whole: unknown;
  try {
    whole = JSON.parse(trimmed);
  } catch {
    whole = undefined;
  }
  if (whole === undefined) return chainOf(parseJsonLines(trimmed), null, null);
  if (Array.isArray(whole)) return chainOf(whole, null, null);
  if (typeof whole === 'object' && whole !== null) {
    const obj = whole as Record<string, unknown>;
    if (obj.format === SEAL_FORMAT) return { kind: 'seal', seal: obj as unknown as SealArtifact };
    if (Array.isArray(obj.rows)) {
      const genesis = typeof obj.genesis_tick === 'number' ? obj.genesis_tick : null;
      return chainOf(obj.rows, typeof obj.slug === 'string' ? obj.slug : null, genesis);
    }
    // A single-line JSONL file holds one row.
    if (typeof obj.state_hash === 'string') return chainOf([obj], null, null);
  }
  throw new Error(`not a ${SEAL_FORMAT} seal, a JSON-lines chain, a JSON array of rows or an explore answer`);
}

function parseJsonLines(text: string): unknown[] {
  return text.split('\n').map((line, i) => {
    try {
      return JSON.parse(line);
    } catch {
      throw new Error(`line ${i + 1} is not JSON`);
    }
  });
}

function chainOf(values: unknown[], slug: string | null, genesisTick: number | null): Artifact {
  const rows = values.filter((v): v is ChainRow => typeof v === 'object' && v !== null && typeof (v as ChainRow).state_hash === 'string');
  if (rows.length !== values.length) throw new Error('some entries are not chain rows (no state_hash)');
  // Exports may be newest first (activity); anything else out of order was reordered after export.
  const descending = rows.length > 1 && rows[0]!.seq > rows[rows.length - 1]!.seq;
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1]!.seq, rows[i]!.seq];
    if (descending ? b >= a : b <= a) throw new Error(`entry ${i + 1} holds seq ${b} after seq ${a}: the rows were reordered`);
  }
  rows.sort((a, b) => a.seq - b.seq);
  const inferred = slug ?? slugOfRowId(rows[0]?.id);
  return { kind: 'chain', rows, slug: inferred, genesisTick };
}

/** Row ids are `<slug>:<seq>`. */
function slugOfRowId(id: unknown): string | null {
  if (typeof id !== 'string') return null;
  const at = id.lastIndexOf(':');
  return at > 0 ? id.slice(0, at) : null;
}

export interface ChainVerdict {
  valid: boolean;
  slug: string | null;
  count: number;
  first_seq: number | null;
  last_seq: number | null;
  broken_at: number | null;
  broken_seq: number | null;
  /** 'verified', 'unchecked' (the export does not start at seq 0, or the genesis tick is unknown) or 'mismatch'. */
  genesis: 'verified' | 'unchecked' | 'mismatch';
  /** Checkpoints of this slug compared with the rows. */
  checkpoints_checked: number;
  problems: string[];
}

/** How far back from the first row's tick a genesis tick is searched when none is given. */
const GENESIS_SEARCH_TICKS = 16;

/**
 * Verifies an exported chain: consecutive seqs, every row's hash and link, the genesis seed when the
 * export starts at seq 0, and each given checkpoint of the same machine (a checkpoint past the last
 * row means rows are missing at the end; one whose hash differs means the history was rewritten).
 */
export function verifyChainExport(
  rows: readonly ChainRow[],
  opts: { slug?: string | null; genesisTick?: number | null; checkpoints?: readonly Checkpoint[] } = {},
): ChainVerdict {
  const slug = opts.slug ?? slugOfRowId(rows[0]?.id);
  const problems: string[] = [];
  const base = { slug, first_seq: rows[0]?.seq ?? null, last_seq: rows[rows.length - 1]?.seq ?? null };
  let genesis: ChainVerdict['genesis'] = 'unchecked';
  let broken: { tick: number; seq: number } | null = null;
  for (let i = 1; i < rows.length && !broken; i++) {
    if (rows[i]!.seq !== rows[i - 1]!.seq + 1) {
      broken = { tick: rows[i]!.tick, seq: rows[i]!.seq };
      problems.push(`rows are missing between seq ${rows[i - 1]!.seq} and seq ${rows[i]!.seq}`);
    }
  }
  const first = rows[0];
  if (first && first.seq === 0 && slug) genesis = genesisOf(first, slug, opts.genesisTick ?? null);
  if (genesis === 'mismatch') problems.push(`row 0 does not link to the genesis seed of "${slug}"`);
  const check = verifyChain(rows, undefined);
  if (!check.valid && (!broken || check.broken_seq! <= broken.seq)) {
    broken = { tick: check.broken_at!, seq: check.broken_seq! };
    problems.unshift(`seq ${check.broken_seq} (tick ${check.broken_at}): ${check.reason}`);
  }
  let checked = 0;
  for (const c of opts.checkpoints ?? []) {
    if (c.slug !== slug) continue;
    checked += 1;
    const row = rows.find((r) => r.seq === c.seq);
    if (row === undefined && base.last_seq !== null && c.seq > base.last_seq) {
      problems.push(`the node signed seq ${c.seq} at tick ${c.signed_tick}, but the chain ends at seq ${base.last_seq}: rows are missing at the end`);
    } else if (row !== undefined && row.state_hash !== c.head_hash) {
      problems.push(`seq ${c.seq} has a different hash than the node signed at tick ${c.signed_tick}: the history was rewritten`);
    }
  }
  return {
    valid: problems.length === 0,
    ...base,
    count: rows.length,
    broken_at: broken?.tick ?? null,
    broken_seq: broken?.seq ?? null,
    genesis,
    checkpoints_checked: checked,
    problems,
  };
}

function genesisOf(first: ChainRow, slug: string, genesisTick: number | null): ChainVerdict['genesis'] {
  if (genesisTick !== null) return first.prev_hash === genesisSeed(slug, genesisTick) ? 'verified' : 'mismatch';
  // The genesis row is stamped at or just after the genesis tick: look back a little.
  for (let t = first.tick; t >= Math.max(0, first.tick - GENESIS_SEARCH_TICKS); t--) {
    if (first.prev_hash === genesisSeed(slug, t)) return 'verified';
  }
  return 'unchecked';
}

export interface VerifyReport {
  valid: boolean;
  lines: string[];
}

/**
 * Verifies a set of artifacts together: each seal on its own, each chain on its own and against the
 * checkpoints of every valid seal given with it.
 */
export function verifyArtifacts(
  artifacts: ReadonlyArray<{ name: string; artifact: Artifact }>,
  opts: { genesisTick?: number; expectKeyId?: string } = {},
): VerifyReport {
  const lines: string[] = [];
  let valid = true;
  const checkpoints: Checkpoint[] = [];
  for (const { name, artifact } of artifacts) {
    if (artifact.kind !== 'seal') continue;
    const check = verifySeal(artifact.seal, opts.expectKeyId !== undefined ? { expectKeyId: opts.expectKeyId } : {});
    valid &&= check.valid;
    lines.push(`${name}: seal ${check.valid ? 'VALID' : 'INVALID'} (key ${check.key_id ?? '?'}, ${check.checkpoints} checkpoints)`);
    for (const p of check.problems) lines.push(`  - ${p}`);
    if (check.valid) checkpoints.push(...artifact.seal.checkpoints);
  }
  for (const { name, artifact } of artifacts) {
    if (artifact.kind !== 'chain') continue;
    const verdict = verifyChainExport(artifact.rows, {
      slug: artifact.slug,
      genesisTick: opts.genesisTick ?? artifact.genesisTick,
      checkpoints,
    });
    valid &&= verdict.valid;
    const range = verdict.count === 0 ? 'no rows' : `seq ${verdict.first_seq}..${verdict.last_seq}`;
    lines.push(
      `${name}: chain ${verdict.slug ?? '?'} ${verdict.valid ? 'VALID' : 'INVALID'} (${verdict.count} rows, ${range}, genesis ${verdict.genesis}, ${verdict.checkpoints_checked} checkpoints compared)`,
    );
    if (verdict.broken_at !== null) lines.push(`  - first broken row: seq ${verdict.broken_seq} at tick ${verdict.broken_at}`);
    for (const p of verdict.problems) lines.push(`  - ${p}`);
  }
  return { valid, lines };
}
