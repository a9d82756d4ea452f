import { readFileSync } from 'node:fs';
import { errors } from '../../errors.js';
import { resourcePath } from '../../lib/paths.js';
import { pageOf } from '../../lib/cursor.js';

export interface PhysicalConstant {
  key: string;
  name: string;
  symbol: string | null;
  value: number;
  uncertainty: number;
  relative_uncertainty: number;
  unit: string;
  exact: boolean;
  aliases: string[];
}

interface ConstantsFile {
  source: string;
  constants: Array<Omit<PhysicalConstant, 'relative_uncertainty'>>;
}

export interface ConstantsService {
  list(input: { q?: string; limit?: number; cursor?: string }): Promise<{
    ok: true;
    source: string;
    total: number;
    constants: PhysicalConstant[];
    next_cursor: string | null;
  }>;
  get(key: string): Promise<{ ok: true; source: string; constant: PhysicalConstant }>;
}

/** Serves the CODATA 2018 table from `resources/constants/codata-2018.json`, indexed once at start. */
export function createConstantsService(file = resourcePath('constants', 'codata-2018.json')): ConstantsService {
  const data = JSON.parse(readFileSync(file, 'utf8')) as ConstantsFile;
  const all: PhysicalConstant[] = data.constants.map((c) => ({
    ...c,
    relative_uncertainty: c.value === 0 ? 0 : Math.abs(c.uncertainty / c.value),
  }));
  const exact = new Map<string, PhysicalConstant>();
  const folded = new Map<string, PhysicalConstant>();
  for (const c of all) exact.set(c.key, c);
  for (const c of all) for (const a of c.aliases) if (!exact.has(a)) exact.set(a, c);
  for (const c of all) if (c.symbol && !exact.has(c.symbol)) exact.set(c.symbol, c);
  for (const [k, c] of exact) if (!folded.has(k.toLowerCase())) folded.set(k.toLowerCase(), c);

  const haystack = new Map(all.map((c) => [c, [c.key, c.name, c.symbol ?? '', ...c.aliases].join(' ').toLowerCase()]));

  return {
    async list({ q, limit = 100, cursor }) {
      const needle = q?.trim().toLowerCase();
      const matches = needle ? all.filter((c) => haystack.get(c)!.includes(needle)) : all;
      const { page, next_cursor } = pageOf(matches, limit, cursor);
      return { ok: true, source: data.source, total: matches.length, constants: page, next_cursor };
    },
    async get(key) {
      const found = exact.get(key) ?? folded.get(key.toLowerCase());
      if (!found) {
        throw errors.notFound(`No constant "${key}"; list them with GET /api/constants?q=...`, { key });
      }
      return { ok: true, source: data.source, constant: found };
    },
  };
}
