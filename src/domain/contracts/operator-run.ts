import { CoreError } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import type { Clock } from '../../lib/clock.js';
import { digestOf } from '../../lib/hash.js';
import type { NodeKeys } from '../identity/node-keys.js';
import type { ReceiptIssuer } from '../operators/compute.service.js';
import type { OperatorsService } from '../operators/operators.service.js';
import { evaluateNumber } from './condition.js';

const SUBSTRATE = 'KO42';

/** The receipts area as contracts use it: compute receipts, and their verification when offered. */
export interface ContractReceipts extends ReceiptIssuer {
  verifyReceipt?(receipt: never, opts: { input?: unknown; output?: unknown }): Promise<{ valid: boolean; reason: string | null }>;
}

/** The value a transition receipt's `input_sha256` digests. */
export const receiptInput = (chain: string[], scope: Record<string, unknown>) => ({ operators: chain, input: scope });

/** What the engine needs of the operator registry (absent while that area is not wired). */
export type OperatorRegistry = Pick<OperatorsService, 'exists' | 'get' | 'evaluate'>;

export interface OperatorRunDeps {
  clock: Clock;
  nodeKeys: NodeKeys;
  operators: OperatorRegistry;
  /** Absent: a local HMAC receipt of the same shape, made with the node's receipt key. */
  receipts?: ContractReceipts;
}

export interface OperatorStep {
  operator: string;
  evaluated: boolean;
  value?: number;
  unit?: string;
  equation?: string;
  /** The input values the operator was evaluated on (bound by the receipt through the output digest). */
  inputs?: Record<string, number>;
  /** Inputs the operator declares that the scope did not give; it is then recorded, not evaluated. */
  missing?: string[];
  /** Why mapped inputs (`operator_inputs`) gave no number, when that is why it was not evaluated. */
  reason?: string;
}

export type OperatorRun =
  | {
      ok: true;
      chain: string[];
      output: { value: number | null; unit: string | null; steps: OperatorStep[] };
      receipt: Record<string, unknown>;
      proof_digest: string;
    }
  | { ok: false; chain: string[]; error: string };

/**
 * Runs a transition's operators: KO42 first (the clock modulation at this instant), then each listed
 * operator on numeric inputs. An input named in `mapping` (the transition's `operator_inputs`, keyed
 * `<ID>.<name>` or `<name>`, the former winning) is the value of its CEL expression over the scope;
 * any other input is the scope's `<ID>.<name>`, an earlier operator's output of that name, or `<name>`.
 * An operator whose inputs are not all given (or whose mapped expression fails or is not a finite
 * number, with the reason recorded) is recorded as not evaluated rather than failing the fire, as a
 * missing input always has been. An input out of bounds or a non-finite result fails the run
 * (`compute_failed`). Each evaluated step records the input values it used.
 * The outcome is bound by a receipt: the receipts area's when it is wired, else a local HMAC receipt
 * of the same shape made with the node's receipt key.
 */
export async function runOperators(
  deps: OperatorRunDeps,
  ids: readonly string[],
  scope: Record<string, unknown>,
  mapping: Readonly<Record<string, string>> = {},
): Promise<OperatorRun> {
  const chain = [SUBSTRATE, ...ids.map((id) => id.toUpperCase()).filter((id) => id !== SUBSTRATE)];
  const registry = deps.operators;
  const steps: OperatorStep[] = [];
  const produced = new Map<string, number>();
  try {
    for (const id of chain) steps.push(await step(registry, id, scope, produced, mapping));
  } catch (err) {
    const message = err instanceof CoreError ? err.message : 'operator evaluation failed';
    return { ok: false, chain, error: message };
  }
  const last = [...steps].reverse().find((s) => s.evaluated);
  const output = { value: last?.value ?? null, unit: last?.unit ?? null, steps };
  const input = receiptInput(chain, scope);
  const receipt = await issue(deps, chain, input, output);
  return { ok: true, chain, output, receipt, proof_digest: digestOf(receipt) };
}

async function step(
  registry: OperatorRegistry,
  id: string,
  scope: Record<string, unknown>,
  produced: Map<string, number>,
  mapping: Readonly<Record<string, string>>,
): Promise<OperatorStep> {
  if (id === SUBSTRATE) {
    const r = await registry.evaluate(SUBSTRATE, {});
    return { operator: id, evaluated: true, value: r.value, unit: r.unit, equation: r.equation };
  }
  const def = registry.get(id);
  if (!def) return { operator: id, evaluated: false };
  const inputs: Record<string, number> = {};
  const missing: string[] = [];
  const reasons: string[] = [];
  for (const input of def.inputs) {
    const expression = mappedExpression(mapping, def.id, input.name);
    let value: number | undefined;
    if (expression !== undefined) {
      const out = evaluateNumber(expression, scope);
      if (out.ok) value = out.value;
      else reasons.push(`operator_inputs ${input.name}: ${out.error}`);
    } else {
      value = numeric(scope[`${def.id}.${input.name}`]) ?? produced.get(input.name) ?? numeric(scope[input.name]);
    }
    if (value === undefined) missing.push(input.name);
    else inputs[input.name] = value;
  }
  if (missing.length > 0) return { operator: def.id, evaluated: false, missing, ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}) };
  const r = await registry.evaluate(def.id, inputs);
  produced.set(def.output.name, r.value);
  return { operator: def.id, evaluated: true, value: r.value, unit: r.unit, equation: r.equation, inputs };
}

async function issue(deps: OperatorRunDeps, chain: string[], input: unknown, output: unknown): Promise<Record<string, unknown>> {
  const issuer = deps.receipts;
  if (issuer) return { ...(await issuer.issueReceipt({ kind: 'compute', chain, version: null, input, output })) };
  return localReceipt(deps, chain, input, output);
}

/** A receipt with the compute receipt's fields, HMAC-SHA256 over the canonical JSON of the others. */
export function localReceipt(deps: Pick<OperatorRunDeps, 'clock' | 'nodeKeys'>, chain: string[], input: unknown, output: unknown): Record<string, unknown> {
  const body = {
    kind: 'compute',
    solver: null,
    operator_chain: chain,
    solver_version: null,
    input_sha256: digestOf(input),
    output_sha256: digestOf(output),
    tick: deps.clock.tick(),
    phase: deps.clock.phase(),
    key_id: deps.nodeKeys.receiptKeyId,
  };
  return { ...body, hmac: deps.nodeKeys.hmac(canonicalJson(body)) };
}

/** The expression mapped to an operator input: `<ID>.<name>` first (ids match case-insensitively), then `<name>`. */
function mappedExpression(mapping: Readonly<Record<string, string>>, id: string, name: string): string | undefined {
  for (const [key, expression] of Object.entries(mapping)) {
    const dot = key.lastIndexOf('.');
    if (dot > 0 && key.slice(dot + 1) === name && key.slice(0, dot).toUpperCase() === id.toUpperCase()) return expression;
  }
  return Object.hasOwn(mapping, name) ? mapping[name] : undefined;
}

function numeric(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
