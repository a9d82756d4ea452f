import type { ToolDef } from '../src/registry/types.js';
import { accountTool } from './platform/account.tool.js';
import { apiCatalogTool } from './platform/api-catalog.tool.js';
import { authTool } from './platform/auth.tool.js';
import { constantsTool } from './platform/constants.tool.js';
import { httpTool } from './platform/http.tool.js';
import { kernelTool } from './platform/kernel.tool.js';
import { pulseTool } from './platform/pulse.tool.js';
import { communityOperatorProposeTool } from './compute/community-operator-propose.tool.js';
import { communityOperatorVoteTool } from './compute/community-operator-vote.tool.js';
import { communityOperatorsTool } from './compute/community-operators.tool.js';
import { compressTool } from './compute/compress.tool.js';
import { computeTool } from './compute/compute.tool.js';
import { operatorsTool } from './compute/operators.tool.js';
import { solveTool } from './compute/solve.tool.js';
import { solversTool } from './compute/solvers.tool.js';
import { verifyTool } from './compute/verify.tool.js';
import { activityTool } from './machines/activity.tool.js';
import { adminsTool } from './machines/admins.tool.js';
import { anchorsTool } from './machines/anchors.tool.js';
import { apiKeysTool } from './machines/api-keys.tool.js';
import { auditDecryptTool } from './machines/audit-decrypt.tool.js';
import { blockTool } from './machines/block.tool.js';
import { chainReadTool } from './machines/chain-read.tool.js';
import { chainVerifyTool } from './machines/chain-verify.tool.js';
import { chainWriteTool } from './machines/chain-write.tool.js';
import { machineSettingsTool } from './machines/machine-settings.tool.js';
import { machinesTool } from './machines/machines.tool.js';
import { siteTool } from './machines/site.tool.js';
import { spinUpTool } from './machines/spin-up.tool.js';
import { streamTool } from './machines/stream.tool.js';
import { contractAuditTool } from './contracts/contract-audit.tool.js';
import { contractControlTool } from './contracts/contract-control.tool.js';
import { contractDeployTool } from './contracts/contract-deploy.tool.js';
import { contractEventsTool } from './contracts/contract-events.tool.js';
import { contractGenerateTool } from './contracts/contract-generate.tool.js';
import { contractScheduleTool } from './contracts/contract-schedule.tool.js';
import { contractSimulateTool } from './contracts/contract-simulate.tool.js';
import { contractTemplatesTool } from './contracts/contract-templates.tool.js';
import { contractTransferTool } from './contracts/contract-transfer.tool.js';
import { contractTransitionTool } from './contracts/contract-transition.tool.js';
import { contractUpdateTool } from './contracts/contract-update.tool.js';
import { contractsPublicTool } from './contracts/contracts-public.tool.js';
import { contractsTool } from './contracts/contracts.tool.js';
import { agentFilesTool } from './agents/agent-files.tool.js';
import { agentPlanReadTool } from './agents/agent-plan-read.tool.js';
import { agentPlanWriteTool } from './agents/agent-plan-write.tool.js';
import { agentSkillsTool } from './agents/agent-skills.tool.js';
import { agentStateTool } from './agents/agent-state.tool.js';
import { agentsTool } from './agents/agents.tool.js';
import { sandboxHistoryTool } from './agents/sandbox-history.tool.js';
import { sandboxRunTool } from './agents/sandbox-run.tool.js';
import { cdnSitesTool } from './edge/cdn-sites.tool.js';
import { chatTool } from './edge/chat.tool.js';
import { threatFeedTool } from './edge/threat-feed.tool.js';
import { contributeTool } from './economy/contribute.tool.js';
import { creditsTool } from './economy/credits.tool.js';
import { tallyTool } from './economy/tally.tool.js';

/** The 57 tools, by toolset. Order is the order of `tools/list`. */
export const allTools = [
  // platform
  apiCatalogTool,
  httpTool,
  pulseTool,
  kernelTool,
  constantsTool,
  accountTool,
  authTool,
  // compute
  solversTool,
  solveTool,
  computeTool,
  verifyTool,
  operatorsTool,
  compressTool,
  communityOperatorsTool,
  communityOperatorProposeTool,
  communityOperatorVoteTool,
  // machines
  spinUpTool,
  machinesTool,
  machineSettingsTool,
  adminsTool,
  apiKeysTool,
  chainWriteTool,
  chainReadTool,
  activityTool,
  blockTool,
  chainVerifyTool,
  anchorsTool,
  auditDecryptTool,
  streamTool,
  siteTool,
  // contracts
  contractTemplatesTool,
  contractDeployTool,
  contractGenerateTool,
  contractsTool,
  contractUpdateTool,
  contractControlTool,
  contractTransitionTool,
  contractSimulateTool,
  contractScheduleTool,
  contractAuditTool,
  contractTransferTool,
  contractEventsTool,
  contractsPublicTool,
  // agents
  agentPlanReadTool,
  agentPlanWriteTool,
  sandboxRunTool,
  sandboxHistoryTool,
  agentSkillsTool,
  agentFilesTool,
  agentStateTool,
  agentsTool,
  // economy
  tallyTool,
  creditsTool,
  contributeTool,
  // edge
  threatFeedTool,
  cdnSitesTool,
  chatTool,
] satisfies ToolDef[];
