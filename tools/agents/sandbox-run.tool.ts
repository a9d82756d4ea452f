import { z } from 'zod';
import { defineAction, defineTool } from '../../src/registry/types.js';
import { Slug, Uid } from '../../src/registry/common-schemas.js';
import { actorOf } from './agent-actor.js';
import { SandboxQuota, SandboxRun } from './agents.schemas.js';

export const sandboxRunTool = defineTool({
  name: 'core_sandbox_run',
  toolset: 'agents',
  title: 'Run Python in a sandbox',
  description:
    'Runs Python 3 code for an agent in an isolated sandbox (no network, private /tmp, 512 MiB, up to 30 s). A non-zero `exit_code` (1 error, 124 timeout, 137 memory kill) means the code failed, not the call. Quota: 20 runs and 60,000 mz per rolling 24 h; 2 runs running or waiting per agent, and one that cannot start within 2 minutes is refused (RATE_LIMITED, nothing charged).',
  actions: [
    defineAction({
      id: 'sandbox.run',
      action: 'run',
      method: 'POST',
      path: '/api/agent/{uid}/sandbox/run',
      auth: 'bearer',
      agentStore: 'write',
      waits: true,
      area: 'agents',
      summary: 'Runs Python code with optional stdin and time limit and returns ok, exit code, stdout, stderr (64 KB each), duration and units.',
      input: z.object({
        uid: Uid.describe("Agent uid; yours when omitted (another agent's under its delegation)"),
        code: z.string().min(1).max(262_144).describe('Python 3 source'),
        stdin: z.string().max(1_048_576).optional().describe('Text given on standard input'),
        timeout_ms: z.number().int().min(100).max(30_000).default(10_000).describe('Wall-time limit; exit 124 when exceeded'),
        slug: Slug.optional().describe("Machine on whose behalf the code runs (needed when its owner calls under the agent's write delegation)"),
      }),
      // `ok` is the code's outcome here, not the call's: the spec answers 200 with ok false when the code fails.
      output: SandboxRun.extend({ quota: SandboxQuota.describe('Quota after this run') }),
      handler: async ({ uid, code, stdin, timeout_ms, slug }, ctx) => {
        const actor = actorOf(ctx);
        return ctx.services.sandbox.run(uid, {
          code,
          timeout_ms,
          slug: slug ?? null,
          actor_uid: actor.actor_uid,
          stillAllowed: () => ctx.stillAllowed(),
          ...(stdin !== undefined ? { stdin } : {}),
        });
      },
    }),
  ],
});
