import type { OperatorDef } from './operator.types.js';

export interface SearchQuery {
  q?: string | undefined;
  category?: string | undefined;
  /** Exact ids, any case. */
  ids?: string[] | undefined;
}

interface Entry {
  op: OperatorDef;
  index: number;
  id: string;
  name: string;
  formula: string;
  description: string;
}

/**
 * Text search over id, name, formula and description. Every word of `q` must occur somewhere
 * (case-insensitive); matches are ranked exact id, id prefix, name, formula, description, then kept in
 * registry order. A linear scan: 1,597 short records take well under a millisecond, so an inverted
 * index would only add start-up time.
 */
export function createOperatorSearch(operators: readonly OperatorDef[]): (query: SearchQuery) => OperatorDef[] {
  const entries: Entry[] = operators.map((op, index) => ({
    op,
    index,
    id: op.id.toLowerCase(),
    name: op.name.toLowerCase(),
    formula: String(op.formula ?? '').toLowerCase(),
    description: String(op.description ?? '').toLowerCase(),
  }));

  return function search(query) {
    const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const ids = query.ids ? new Set(query.ids.map((i) => i.toLowerCase())) : undefined;
    const scored: Array<{ entry: Entry; score: number }> = [];
    for (const entry of entries) {
      if (query.category !== undefined && entry.op.category !== query.category) continue;
      if (ids && !ids.has(entry.id)) continue;
      let score = 0;
      let all = true;
      for (const w of words) {
        const s = scoreWord(entry, w);
        if (s === 0) {
          all = false;
          break;
        }
        score += s;
      }
      if (all) scored.push({ entry, score });
    }
    if (words.length > 0) scored.sort((a, b) => b.score - a.score || a.entry.index - b.entry.index);
    return scored.map((s) => s.entry.op);
  };
}

function scoreWord(e: Entry, w: string): number {
  if (e.id === w) return 100;
  let s = 0;
  if (e.id.startsWith(w)) s += 20;
  const inName = e.name.indexOf(w);
  if (inName >= 0) s += inName === 0 || e.name[inName - 1] === ' ' ? 10 : 6;
  if (e.formula.includes(w)) s += 2;
  if (e.description.includes(w)) s += 1;
  if (s === 0 && e.id.includes(w)) s = 1;
  return s;
}
