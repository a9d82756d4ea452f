import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { liftShareToken, readsWithShareToken, SHARE_TOKEN_FIELD, SHARE_TOKEN_HOME } from '../../../src/registry/share-reads.js';
import { mcpToolsOf } from '../../../src/registry/mcp-tools.js';
import { SERVER_INSTRUCTIONS } from '../../../src/transports/mcp/instructions.js';
import { readTokenKind } from '../../../src/domain/chain/read-tokens.js';
import { CoreError } from '../../../src/errors.js';

const registry = buildRegistry(allTools);
const op = (id: string) => registry.byId.get(id)!;

describe('which operations read with a share token', () => {
  it('takes the public reads that need a machine and no role, and the relay', () => {
    for (const id of ['chain.getState', 'chain.getMachine', 'chain.listAnchors', 'chain.streamExplore', 'tally.listTokens', 'http.call']) {
      expect(readsWithShareToken(op(id)), id).toBe(true);
    }
  });

  it('leaves out writes, reads that need a role or a key, and reads that only filter by machine', () => {
    for (const id of ['chain.appendEvent', 'chain.listAdmins', 'contracts.listContracts', 'contracts.listPublic', 'chain.setShareToken']) {
      expect(readsWithShareToken(op(id)), id).toBe(false);
    }
  });
});

describe('liftShareToken', () => {
  it('takes the token out of the input', () => {
    expect(liftShareToken({ slug: 'm', share_token: 'shr_x' })).toEqual({ token: 'shr_x', rest: { slug: 'm' } });
    expect(liftShareToken({ slug: 'm' })).toBeUndefined();
  });

  it.each([42, '', null, 'x'.repeat(257)])('refuses %j naming the field', (value) => {
    const refused = liftShareToken({ share_token: value });
    expect(refused).toBeInstanceOf(CoreError);
    expect((refused as CoreError).message).toMatch(/^share_token must be/);
  });
});

describe('readTokenKind', () => {
  it('names share and unlock tokens by prefix, nothing else', () => {
    expect(readTokenKind('shr_abc')).toBe('share');
    expect(readTokenKind('unl_abc')).toBe('unlock');
    expect(readTokenKind('core_abc')).toBeUndefined();
    expect(readTokenKind('eyJhbGciOi.x.y')).toBeUndefined();
  });
});

describe('the share_token field in tools/list', () => {
  it('is spelled out once, in its home tool and the server instructions; the other reading tools give a bare string', () => {
    const fields = mcpToolsOf(registry)
      .map((t) => [t.name, (t.inputSchema.properties as Record<string, unknown>).share_token] as const)
      .filter(([, field]) => field !== undefined);
    expect(fields.length).toBeGreaterThan(10);
    for (const [name, field] of fields) expect(field, name).toEqual(name === SHARE_TOKEN_HOME ? SHARE_TOKEN_FIELD : { type: 'string' });
    expect(fields.map(([name]) => name)).toContain(SHARE_TOKEN_HOME);
    expect(SERVER_INSTRUCTIONS).toMatch(/share or unlock token \(shr_\/unl_\) goes in the share_token argument/);
  });
});
