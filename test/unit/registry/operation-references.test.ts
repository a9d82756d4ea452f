import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { exercisingTestSources, operationsReachedIn } from '../../helpers/operation-references.js';

const registry = buildRegistry(allTools);
const reached = (source: string) => [...operationsReachedIn(registry, source)].sort();

describe('the operations a test source reaches', () => {
  it('routes REST calls through the registry, interpolations and query strings included', () => {
    expect(reached("server.call('GET', `/api/chain/${slug}/state?x=1`)")).toEqual(['chain.getState']);
    expect(reached("server.call('POST', '/api/chain/state-machines', { key })")).toEqual(['chain.createMachine']);
    expect(reached("fetch(`${server.url}/api/chain/${slug}/event`, { method: 'POST', body })")).toEqual(['chain.appendEvent']);
    expect(reached('fetch(`${server.url}/api/whoami`)')).toEqual(['identity.describeCaller']);
  });

  it('resolves a path that starts with a prefix named in the same source, and else only an unambiguous ending', () => {
    const source = "const base = `/api/chain/${slug}/contracts`;\nserver.call('POST', `${t.base}/${id}/rollback`);\nserver.call('GET', `${base}/${id}`);";
    expect(reached(source)).toEqual(['contracts.getContract', 'contracts.rollbackContract']);
    expect(reached("server.call('POST', `${elsewhere}/${id}/rollback`)")).toEqual(['contracts.rollbackContract']);
    expect(reached("server.call('GET', `${elsewhere}/${id}`)")).toEqual([]);
  });

  it('reads MCP tool calls by tool and action, ids by the registry, and nothing from a table of declarations', () => {
    expect(reached("params: { name: 'core_chain_write', arguments: { action: 'append_event', slug } }")).toEqual(['chain.appendEvent']);
    expect(reached("callTool(surface, 'core_machines', { action: 'get', slug })")).toEqual(['chain.getMachine']);
    expect(reached("callOp(server, 'chain.getState', { slug })")).toEqual(['chain.getState']);
    expect(reached("'GET /api/chain/{slug}/state public', 'chain.noSuchOperation', server.call('GET', '/api/no/such/route')")).toEqual([]);
  });

  it('reads the test tree without the declaration tests and the output copies of callOp', () => {
    const files = exercisingTestSources().map((s) => s.file);
    expect(files).toContain('api/call-op.test.ts');
    expect(files.some((f) => f.startsWith('unit/registry/') || f === 'catalog.test.ts' || f === 'helpers/operation-outputs.ts')).toBe(false);
  });
});
