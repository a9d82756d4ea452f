import { CoreError, errors } from '../../errors.js';
import type { ProgressUpdate } from '../../lib/handler-results.js';
import type { Caller } from '../identity/caller.js';
import type { Receipt, ReceiptsService } from '../receipts/receipts.service.js';
import type { UsageService } from '../usage/usage.service.js';
import { SOLVERS } from './catalog/index.js';
import { resolveArgs } from './inputs.js';
import type { InputSpec, RunControl, SolverDef, SolverOutcome } from './solver-def.js';

export interface SolverSummary {
  id: string;
  name: string;
  domain: string;
  method: string;
  operator_chain: string[];
  unit: string;
  version: string;
}

export interface SolverView extends SolverSummary {
  description: string;
  inputs: InputSpec[];
  options: InputSpec[];
  example: Record<string, unknown>;
}

export interface SolveAnswer {
  ok: true;
  solver: string;
  version: string;
  result: unknown;
  unit: string;
  diagnostics: { converged: boolean; iterations: number | null; error_estimate: number | null; duration_ms: number };
  receipt: Receipt;
}

/** How a solve reaches its caller: cancellation and progress (both optional). */
export interface SolveContext {
  caller: Caller;
  signal?: AbortSignal;
  progress?: (update: ProgressUpdate) => void;
}

export interface SolversService {
  list(filter?: { domain?: string; q?: string }): { ok: true; total: number; solvers: SolverSummary[] };
  get(id: string): { ok: true; solver: SolverView };
  find(id: string): SolverDef | undefined;
  /**
   * Runs a solver. Missing, unknown or mistyped inputs are 400; out-of-range inputs and non-convergence
   * are 422 with the reason; the result never holds NaN or Infinity. The receipt binds
   * `{ inputs, options }` as given and the `result`; successful solves are counted for the caller.
   */
  solve(id: string, inputs: Record<string, unknown>, options: Record<string, unknown> | undefined, ctx: SolveContext): Promise<SolveAnswer>;
  /** Runs again and returns the `result` a receipt's output_sha256 digests. */
  recompute(id: string, inputs: Record<string, unknown>, options: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<unknown>;
  /** The input a solve receipt digests, rebuilt from what the caller sent. */
  receiptInput(inputs: Record<string, unknown>, options: Record<string, unknown> | undefined): unknown;
}

/** How long a solve may hold the event loop before it yields (and reports progress). */
const SLICE_MS = 40;
/** Wall-clock budget of one solve; inputs are bounded so that only pathological ones come near it. */
export const SOLVE_TIME_BUDGET_MS = 60_000;
const NEVER = new AbortController().signal;

export interface SolversDeps {
  receipts: ReceiptsService;
  usage?: UsageService;
  solvers?: readonly SolverDef[];
  /** Wall-clock budget of one solve (default SOLVE_TIME_BUDGET_MS). */
  timeBudgetMs?: number;
}

export function createSolversService(deps: SolversDeps): SolversService {
  const all = deps.solvers ?? SOLVERS;
  const byId = new Map(all.map((s) => [s.id, s]));
  const summaryOf = (s: SolverDef): SolverSummary => ({
    id: s.id,
    name: s.name,
    domain: s.domain,
    method: s.method,
    operator_chain: s.operator_chain.slice(),
    unit: s.unit,
    version: s.version,
  });
  const haystack = new Map(all.map((s) => [s, [s.id, s.name, s.domain, s.method, s.description].join(' ').toLowerCase()]));

  const lookup = (id: string): SolverDef => {
    const s = byId.get(id);
    if (!s) throw errors.notFound(`No solver "${id}"; list them with GET /api/solvers`, { id });
    return s;
  };

  async function execute(
    def: SolverDef,
    inputs: Record<string, unknown>,
    options: Record<string, unknown> | undefined,
    signal: AbortSignal,
    progress?: (u: ProgressUpdate) => void,
  ): Promise<SolverOutcome> {
    const args = resolveArgs(def.inputs, inputs, 'input', def.id);
    const opts = resolveArgs(def.options, options, 'option', def.id);
    const outcome = await def.run(args, opts, runControl(signal, deps.timeBudgetMs ?? SOLVE_TIME_BUDGET_MS, progress));
    const bad = nonFinitePath(outcome.result, 'result');
    if (bad)
      throw errors.unprocessable(`The solver produced a non-finite value at ${bad} (overflow or a singular point); check the inputs' scale`, { path: bad });
    return outcome;
  }

  return {
    list({ domain, q } = {}) {
      const needle = q?.trim().toLowerCase();
      const solvers = all.filter((s) => (!domain || s.domain === domain) && (!needle || haystack.get(s)!.includes(needle))).map(summaryOf);
      return { ok: true, total: solvers.length, solvers };
    },

    get(id) {
      const s = lookup(id);
      return { ok: true, solver: { ...summaryOf(s), description: s.description, inputs: s.inputs, options: s.options, example: s.example } };
    },

    find: (id) => byId.get(id),

    receiptInput: (inputs, options) => ({ inputs, options: options ?? {} }),

    async solve(id, inputs, options, ctx) {
      const def = lookup(id);
      const started = performance.now();
      const outcome = await execute(def, inputs, options, ctx.signal ?? NEVER, ctx.progress);
      const duration = performance.now() - started;
      const receipt = deps.receipts.issueReceipt({
        kind: 'solve',
        solver: def.id,
        chain: def.operator_chain,
        version: def.version,
        input: { inputs, options: options ?? {} },
        output: outcome.result,
      });
      await deps.usage?.record(ctx.caller, 'solve', [def.id]);
      return {
        ok: true,
        solver: def.id,
        version: def.version,
        result: outcome.result,
        unit: def.unit,
        diagnostics: {
          converged: outcome.converged,
          iterations: outcome.iterations,
          error_estimate: outcome.error_estimate,
          duration_ms: Math.round(duration * 1000) / 1000,
        },
        receipt,
      };
    },

    async recompute(id, inputs, options, signal) {
      return (await execute(lookup(id), inputs, options, signal ?? NEVER)).result;
    },
  };
}

function runControl(signal: AbortSignal, budgetMs: number, progress?: (u: ProgressUpdate) => void): RunControl {
  const started = performance.now();
  let last = started;
  const cancelled = () => new CoreError('UNPROCESSABLE', 'The solve was cancelled by the client');
  return {
    async checkpoint(done, total, message) {
      if (signal.aborted) throw cancelled();
      const now = performance.now();
      if (now - last < SLICE_MS) return;
      // Only the refusal depends on machine speed; a result, when there is one, is still bit-exact.
      if (now - started > budgetMs) {
        throw errors.unprocessable(
          `The solve ran past its ${budgetMs / 1000} s time budget (${done} of ${total} done); use fewer steps, a coarser grid or a looser tolerance`,
          { budget_ms: budgetMs },
        );
      }
      progress?.({ progress: done, total, ...(message ? { message } : {}) });
      // Yield so cancellation, other requests and progress notifications get through.
      await new Promise<void>((resolve) => setImmediate(resolve));
      last = performance.now();
      if (signal.aborted) throw cancelled();
    },
  };
}

/** Path of the first NaN or ±Infinity in a JSON-like value, or undefined. */
function nonFinitePath(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      // A number's path is only spelled out when it is bad: a 150×150 answer would otherwise build 22,500 strings.
      if (typeof item === 'number') {
        if (!Number.isFinite(item)) return `${path}[${i}]`;
        continue;
      }
      const bad = nonFinitePath(item, `${path}[${i}]`);
      if (bad) return bad;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const bad = nonFinitePath(v, `${path}.${k}`);
      if (bad) return bad;
    }
  }
  return undefined;
}
