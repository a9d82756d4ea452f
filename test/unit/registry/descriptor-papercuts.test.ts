import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.js';
import { mcpToolsOf } from '../../../src/registry/mcp-tools.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { SERVER_INSTRUCTIONS } from '../../../src/transports/mcp/instructions.js';

const tools = mcpToolsOf(buildRegistry(allTools));
const tool = (name: string) => tools.find((t) => t.name === name)!;
const field = (name: string, key: string) => (tool(name).inputSchema.properties as Record<string, { description?: string }>)[key]!;

describe('what an agent reads before its first call', () => {
  it('says that verify_receipt with recompute needs inputs and output, in the description and the fields', () => {
    expect(tool('core_verify').description).toMatch(/^[^\n]*recompute: true[^\n]*needs its inputs and output/);
    expect(field('core_verify', 'recompute').description).toMatch(/needs `inputs` and `output`/);
    expect(field('core_verify', 'inputs').description).toMatch(/needed with recompute/);
    expect(field('core_verify', 'output').description).toMatch(/needed with recompute/);
  });

  it("says what core_spin_up does without a slug: the machine is named after the caller's uid", () => {
    expect(tool('core_spin_up').description).toMatch(/Without a slug, the machine is named after your uid/);
  });

  it('gives every tool a title, and the fields a model could not guess a note', () => {
    for (const t of tools) expect(t.title, t.name).toMatch(/\S/);
    expect(field('core_chain_write', 'type').description).toMatch(/e\.g\. "reading"/);
    expect(field('core_account', 'label').description).toMatch(/tell this key from others/);
    expect(field('core_admins', 'uid').description).toMatch(/Member/);
    expect(field('core_verify', 'inputs').description).toBeDefined();
  });

  it('gives every tool the hints a client shows, core_contract_control included', () => {
    for (const t of tools) {
      const hints = t.annotations ?? {};
      // Each tool either reads only, or says whether it destroys (the protocol's default is true).
      expect(hints.readOnlyHint === true || typeof hints.destructiveHint === 'boolean', t.name).toBe(true);
    }
    // fire_now may run a contract's outbound actions: the open-world default (true) is left to the protocol.
    expect(tool('core_contract_control').annotations).toEqual({ destructiveHint: true });
  });

  it('names the guides in the server instructions: the core_kernel prompt and the core://skills/* resources', () => {
    expect(SERVER_INSTRUCTIONS).toContain('core_kernel prompt');
    expect(SERVER_INSTRUCTIONS).toContain('core://skills/');
  });
});
