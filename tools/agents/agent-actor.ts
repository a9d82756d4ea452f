import type { AgentActor } from '../../src/domain/agents/agent-access.js';
import type { ActionContext } from '../../src/registry/types.js';

/**
 * Who acts for the agent, as the pipeline's `agentStore` check established it. A handler never decides
 * this itself; reaching one without the check is a declaration error, not a caller's.
 */
export function actorOf(ctx: ActionContext): AgentActor {
  if (!ctx.agent) throw new Error("an agent-store handler ran without the pipeline's agentStore check");
  return ctx.agent;
}
