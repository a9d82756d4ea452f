/**
 * "Did you mean" for names a caller got slightly wrong: an input key, an action. Pure: the caller hands
 * in the names it knows (from the schema) and gets back at most one, or none when no name is close
 * enough to be a fair guess. A wrong guess costs an agent a call, so ties and far names give none.
 */

/** Case and separators do not count: `maxEvents`, `max-events` and `MAX_EVENTS` all name `max_events`. */
const normal = (name: string): string => name.toLowerCase().replace(/[_\-\s]/g, '');

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `cuont` is one edit from
 * `count`, as a typist would count it.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/** Edits allowed before a name stops looking like a typo of another: one per three letters, at least one. */
const allowedEdits = (length: number): number => Math.max(1, Math.floor(length / 3));

/**
 * The candidate `word` most likely meant: the same name but for case and separators, else the single
 * nearest within the allowed edits, else the one candidate that `word` begins (`desc` for
 * `description`, three letters at least). Undefined when none fits or two fit equally well.
 */
export function nearestName(word: string, candidates: Iterable<string>): string | undefined {
  const w = normal(word);
  let best: string | undefined;
  let bestDistance = Infinity;
  let tied = false;
  const prefixed: string[] = [];
  for (const candidate of candidates) {
    const c = normal(candidate);
    if (c === w) return candidate;
    const d = editDistance(w, c);
    // A name every letter of which must change is not a typo of it (`n` of `q`).
    if (d <= allowedEdits(Math.max(w.length, c.length)) && d < Math.min(w.length, c.length)) {
      if (d < bestDistance) [best, bestDistance, tied] = [candidate, d, false];
      else if (d === bestDistance) tied = true;
    }
    if (w.length >= 3 && c.startsWith(w)) prefixed.push(candidate);
  }
  if (best !== undefined) return tied ? undefined : best;
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** A field a schema declares: its name and the JSON types it accepts (undefined: any value). */
export interface KnownField {
  name: string;
  types: readonly string[] | undefined;
}

const jsonTypeOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' && Number.isInteger(value) ? 'integer' : typeof value;

/** A query string carries every value as text, so text that reads as a number or boolean counts as one. */
const textTypeOf = (value: string): string | undefined =>
  /^-?\d+$/.test(value) ? 'integer' : /^-?\d*\.\d+$/.test(value) ? 'number' : value === 'true' || value === 'false' ? 'boolean' : undefined;

const accepts = (field: KnownField, value: unknown): boolean => {
  if (field.types === undefined) return true;
  const types = [jsonTypeOf(value)];
  if (typeof value === 'string') types.push(textTypeOf(value) ?? 'string');
  return types.some((t) => field.types!.includes(t) || (t === 'integer' && field.types!.includes('number')));
};

/**
 * The field an unrecognized key was meant to fill. Only fields the caller left out are candidates (a key
 * given beside `count` did not mean `count`). By name first (`nearestName`); failing that, the one field
 * left out whose type takes the value given, so `{n: 5}` beside `slug` and `id` points at `count`, the
 * only number left; `byType: false` (several unknown keys at once, any of which might be the one meant)
 * turns that rule off. Undefined when no rule singles one field out.
 */
export function suggestField(key: string, value: unknown, fields: readonly KnownField[], given: ReadonlySet<string>, byType = true): string | undefined {
  const open = fields.filter((f) => !given.has(f.name));
  const byName = nearestName(
    key,
    open.map((f) => f.name),
  );
  if (byName !== undefined || !byType) return byName;
  const typed = open.filter((f) => f.types !== undefined && accepts(f, value));
  return typed.length === 1 ? typed[0]!.name : undefined;
}
