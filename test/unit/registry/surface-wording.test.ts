import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { operationName, restWording, toolWording } from '../../../src/registry/surface-wording.js';

const registry = buildRegistry(allTools);
const words = toolWording(registry);

describe('the tool surface wording', () => {
  it('names a listed REST path as the tool call that does the same', () => {
    expect(words('No template "x"; list them with GET /api/contracts/templates')).toBe(
      'No template "x"; list them with core_contract_templates {"action": "list"}',
    );
  });

  it('carries a concrete path parameter and query values as arguments, and leaves placeholders out', () => {
    expect(words('No rule "r"; GET /api/cf/sites/s1 lists its rules')).toBe('No rule "r"; core_cdn_sites {"action": "get", "id": "s1"} lists its rules');
    expect(words('list them with GET /api/constants?q=...')).toBe('list them with core_constants {"action": "list", "q": "..."}');
    expect(words('deploy it with POST /api/chain/{slug}/contracts {"definition": ...}')).toMatch(
      /^deploy it with core_contract_deploy \{"action": "\w+"\} \{"definition"/,
    );
  });

  it("keeps a sentence's full stop and a single-action tool's empty arguments", () => {
    expect(words('Mint one with POST /api/demo-key/mint.')).toBe('Mint one with core_account {"action": "mint_demo_key"}.');
    expect(words('the clock: GET /api/pulse')).toMatch(/^the clock: core_pulse \{("action": "\w+")?\}$/);
  });

  it('leaves a path no operation answers, and text without paths, as they are', () => {
    expect(words('No route GET /api/nowhere/at-all; search with core_api_catalog')).toBe('No route GET /api/nowhere/at-all; search with core_api_catalog');
    expect(words('nothing to change')).toBe('nothing to change');
  });

  it('is the identity on REST', () => {
    expect(restWording('list them with GET /api/contracts/templates')).toBe('list them with GET /api/contracts/templates');
  });

  it('names an operation by id on REST and by tool and action on a tool surface', () => {
    const op = registry.byId.get('contracts.predictNextFires')!;
    expect(operationName(op, 'rest')).toBe('contracts.predictNextFires');
    expect(operationName(op, 'tool')).toBe('core_contract_schedule action "next_fires"');
  });
});
