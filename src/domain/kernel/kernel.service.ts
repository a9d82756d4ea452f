import { readFileSync } from 'node:fs';
import { digestOf } from '../../lib/hash.js';
import { resourcePath } from '../../lib/paths.js';
import type { ConstantsService } from '../constants/constants.service.js';
import type { SolverSummary } from '../solvers/solvers.service.js';
import { EQUATIONS, MANDATE, PHYSICAL_CONSTANT_KEYS, RULES, TIMING_CONSTANTS } from './kernel-data.js';

/** The operator registry as the kernel reads it; any object with this method will do. */
export interface OperatorCategories {
  categories(): { total: number; categories: Array<{ category: string; name?: string; count: number }> };
}

export interface KernelDocument {
  ok: true;
  version: string;
  constants: Record<string, number>;
  equations: typeof EQUATIONS;
  operators: { available: boolean; note: string | null; total: number; categories: Array<{ category: string; name: string; count: number }> };
  solvers: Array<Pick<SolverSummary, 'id' | 'name' | 'domain' | 'method' | 'unit' | 'version'>>;
  mandate: typeof MANDATE;
  rules: typeof RULES;
  limits: Record<string, number>;
}

export interface KernelService {
  /** The kernel as data; `version` is a digest of everything else, so it changes whenever any part does. */
  get(): Promise<KernelDocument>;
  /** The kernel prompt (resources/kernel/prompt.md), the text an AI agent should follow. */
  prompt(): string;
}

export interface KernelDeps {
  constants: ConstantsService;
  solvers: () => SolverSummary[];
  operators: OperatorCategories;
  limits: Record<string, number>;
  promptFile?: string;
}

export function createKernelService(deps: KernelDeps): KernelService {
  const promptText = readFileSync(deps.promptFile ?? resourcePath('kernel', 'prompt.md'), 'utf8');
  let physical: Record<string, number> | undefined;

  async function physicalConstants(): Promise<Record<string, number>> {
    if (physical) return physical;
    const out: Record<string, number> = {};
    for (const [key, lookup] of PHYSICAL_CONSTANT_KEYS) {
      try {
        out[key] = (await deps.constants.get(lookup)).constant.value;
      } catch {
        // A constant missing from the table is left out rather than invented.
      }
    }
    return (physical = out);
  }

  function operators(): KernelDocument['operators'] {
    const { total, categories } = deps.operators.categories();
    return { available: true, note: null, total, categories: categories.map((c) => ({ category: c.category, name: c.name ?? c.category, count: c.count })) };
  }

  return {
    async get() {
      const body = {
        constants: { ...TIMING_CONSTANTS, ...(await physicalConstants()) },
        equations: EQUATIONS,
        operators: operators(),
        solvers: deps.solvers().map(({ id, name, domain, method, unit, version }) => ({ id, name, domain, method, unit, version })),
        mandate: MANDATE,
        rules: RULES,
        limits: deps.limits,
      };
      return { ok: true, version: digestOf({ ...body, prompt: promptText }).slice(0, 16), ...body };
    },
    prompt: () => promptText,
  };
}
