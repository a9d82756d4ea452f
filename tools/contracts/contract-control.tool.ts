import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { JsonObject, Slug, Tick } from '../../src/registry/common-schemas.js';
import { ContractId, ContractStatus, StateName, TransitionRow } from './contracts.schemas.js';
import type { StatusAnswer as ControlStatus } from '../../src/domain/contracts/contract-control.service.js';
import { wireShape } from '../../src/registry/wire-shape.js';

const Target = z.object({ slug: Slug, id: ContractId });

const StatusAnswer = wireShape<{ ok: true } & ControlStatus>()(
  z.object({
    ok: z.literal(true),
    contract_id: ContractId,
    status: ContractStatus,
    next_fire: Tick.nullable().describe('Tick of the next scheduled fire; null when none is scheduled'),
  }),
);

/** Pause, resume and freeze share one shape; only the verb and path differ. */
const control = <Id extends string>(verb: 'pause' | 'resume' | 'freeze', id: Id, summary: string, extra: { destructive?: true } = {}) =>
  defineAction({
    id,
    action: verb,
    method: 'POST',
    path: `/api/chain/{slug}/contracts/{id}/${verb}`,
    auth: 'bearer',
    role: 'operator',
    guards: 'slug',
    area: 'contracts',
    summary,
    input: Target,
    output: StatusAnswer,
    idempotent: true,
    ...extra,
    handler: async ({ slug, id }, { services, caller }) => ({ ok: true as const, ...(await services.contracts.control[verb](slug, id, caller)) }),
  });

export const contractControlTool = defineTool({
  name: 'core_contract_control',
  toolset: 'contracts',
  title: 'Control a contract',
  description:
    "Controls when a contract's scheduled triggers fire: pause and resume scheduling, skip the next due fire, fire a scheduled trigger now, freeze it for good, or kill it (owner only, with a reason). Use core_contract_schedule first to see what is due.",
  actions: [
    control('pause', 'contracts.pauseContract', 'Pauses scheduling: due fires are skipped until resumed; driven transitions still work.'),
    control('resume', 'contracts.resumeContract', 'Resumes a paused contract.'),
    control(
      'freeze',
      'contracts.freezeContract',
      'Freezes a contract for good: the row and its audit history stay, no fire ever occurs again and next_fire is cleared.',
      { destructive: true },
    ),
    defineAction({
      id: 'contracts.skipNextFire',
      action: 'skip_next',
      method: 'POST',
      path: '/api/chain/{slug}/contracts/{id}/skip-next',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'contracts',
      summary: 'Skips the next scheduled fire; returns the skipped tick and the new next fire.',
      input: Target,
      output: StatusAnswer.extend({ skipped_tick: Tick.nullable().describe('Tick that will not fire; null when nothing was scheduled') }),
      handler: async ({ slug, id }, { services, caller }) => ({ ok: true as const, ...(await services.contracts.control.skipNext(slug, id, caller)) }),
    }),
    defineAction({
      id: 'contracts.fireNow',
      action: 'fire_now',
      method: 'POST',
      path: '/api/chain/{slug}/contracts/{id}/fire-now',
      auth: 'bearer',
      role: 'operator',
      guards: 'slug',
      area: 'contracts',
      summary: 'Fires the scheduled trigger now; returns the resulting transition row.',
      input: Target.extend({
        to: StateName.optional().describe('Target state, if several scheduled transitions leave the current one'),
        input: JsonObject.optional().describe('Extra input scope'),
      }),
      output: z.object({
        ok: z.literal(true),
        contract_id: ContractId,
        fired: z.boolean().describe('False when the condition filtered the fire; the row then records why'),
        new_state: StateName,
        transition: TransitionRow,
        next_fire: Tick.nullable(),
      }),
      openWorld: true,
      handler: async ({ slug, id, to, input }, { services, caller }) => {
        const answer = await services.contracts.control.fireNow(slug, id, caller, { to, input });
        return { ok: true as const, ...answer, transition: answer.transition as z.infer<typeof TransitionRow> };
      },
    }),
    defineAction({
      id: 'contracts.killContract',
      action: 'kill',
      method: 'POST',
      path: '/api/core/agent/kill/{id}',
      auth: 'public',
      role: 'owner',
      guards: 'slug',
      area: 'contracts',
      summary: "Stops a contract at once on its owner's word; records the reason in the audit chain; it stays readable but never fires again.",
      input: z.object({
        id: ContractId,
        slug: Slug.describe('Machine that holds the contract; the caller must be its owner'),
        reason: z.string().min(1).max(500).describe('Why; written to the audit chain'),
      }),
      output: z.object({
        ok: z.literal(true),
        contract_id: ContractId,
        status: z.literal('killed'),
        killed_tick: Tick,
      }),
      destructive: true,
      idempotent: true,
      handler: async ({ id, slug, reason }, { services, caller }) => ({
        ok: true as const,
        ...(await services.contracts.control.kill(slug, id, caller, reason)),
      }),
    }),
  ],
});
