import type { Pipeline } from '../pipeline/invoke.js';
import type { Operation, Registry } from '../registry/registry.js';
import type { Caller } from '../domain/identity/caller.js';
import type { Services } from '../domain/services.js';
import { sampleInput } from './sample-input.js';
import { onceUnlessFailed } from '../lib/once.js';
import type { SelfCheck, SelfCheckReport } from '../registry/app-ports.js';

/** A core made for the check alone, over a temporary data directory removed by `close`. */
export interface ThrowawayCore {
  registry: Registry;
  pipeline: Pipeline;
  services: Services;
  close(): Promise<void>;
}

const SMOKE_SLUG = 'self-check';
const OP_TIMEOUT_MS = 5_000;
const BADGE_OP = 'platform.getConformanceBadge';

/**
 * The built-in self-check: every operation gets one smoke call through the pipeline of a throwaway
 * core, as the owner of a fresh public machine, with a sample input built from its schema. The real
 * data directory is never opened. Operations that destroy things run last so the others see the machine.
 */
export function createSelfCheck(deps: { open: () => Promise<ThrowawayCore>; now: () => number }): SelfCheck {
  return { report: onceUnlessFailed(() => run(deps)) };
}

async function run(deps: { open: () => Promise<ThrowawayCore>; now: () => number }): Promise<SelfCheckReport> {
  const core = await deps.open();
  try {
    const { key } = await core.services.identity.mintDemoKey('self-check');
    const caller = (await core.services.identity.resolveKey(key))!;
    await core.services.machines.create({ slug: SMOKE_SLUG, is_public: true }, caller);
    const overrides = { slug: SMOKE_SLUG, motherSlug: SMOKE_SLUG, uid: caller.uid };
    const ops = [...core.registry.operations].sort((a, b) => Number(Boolean(a.def.destructive)) - Number(Boolean(b.def.destructive)));
    const report: SelfCheckReport = { passed: 0, succeeded: 0, failed: 0, skipped: 0, total: ops.length, failures: [], checked_at: '' };
    for (const op of ops) {
      if (op.def.openWorld || op.id === BADGE_OP) {
        report.skipped += 1;
        continue;
      }
      const outcome = await smoke(core.pipeline, op, caller, overrides);
      if (outcome === 'ok' || outcome === 'refused') {
        report.passed += 1;
        if (outcome === 'ok') report.succeeded += 1;
      } else {
        report.failed += 1;
        report.failures.push({ op: op.id, reason: outcome });
      }
    }
    report.checked_at = new Date(deps.now()).toISOString();
    return report;
  } finally {
    await core.close();
  }
}

async function smoke(pipeline: Pipeline, op: Operation, caller: Caller, overrides: Record<string, unknown>): Promise<string> {
  const fields = (op.inputSchema as { properties?: Record<string, unknown> }).properties ?? {};
  const input = sampleInput(op.inputSchema as never, Object.fromEntries(Object.entries(overrides).filter(([k]) => k in fields)));
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve('timeout');
    }, OP_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([pipeline.invokeAs(op, input, caller, { surface: 'rest', signal: controller.signal }), timeout]);
    if (result === 'timeout') return 'no answer within 5 s';
    if (result.ok) return 'ok';
    return result.error.code === 'INTERNAL' || result.error.code === 'NOT_IMPLEMENTED' ? result.error.code : 'refused';
  } finally {
    clearTimeout(timer);
  }
}
