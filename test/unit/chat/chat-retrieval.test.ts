import { describe, expect, it } from 'vitest';
import { composeAnswer, queryWords, retrieve, type ChatSources } from '../../../src/domain/chat/chat-retrieval.js';

const sources: ChatSources = {
  endpoints: () => [
    {
      id: 'contract.create',
      method: 'POST',
      path: '/api/chain/{slug}/contracts',
      summary: 'Creates a contract on the machine',
      tool: 'core_contract_deploy',
      action: 'create',
    },
    { id: 'machine.create', method: 'POST', path: '/api/chain/state-machines', summary: 'Spins up a machine', tool: 'core_spin_up', action: null },
    { id: 'pulse.get', method: 'GET', path: '/api/pulse', summary: 'Reads the tick and phase', tool: 'core_pulse', action: null },
  ],
  operators: () => [
    { id: 'SR3', name: 'Length contraction', formula: 'L = L0 sqrt(1 - v^2/c^2)', category: 'special_relativity' },
    { id: 'NM19', name: "Newton's second law", formula: 'F = m a', category: 'newtonian_mechanics' },
    { id: 'GR37', name: 'Schwarzschild radius', formula: 'r = 2GM/c^2', category: 'general_relativity' },
  ],
  operatorById: (id) => (id === 'NM19' ? { id: 'NM19', name: "Newton's second law", formula: 'F = m a', category: 'newtonian_mechanics' } : undefined),
  templates: () => [],
  kernelPrompt: () => '# Title\n\nDeploy a contract with care on your machine.\n\nUnrelated paragraph about pulses.',
};

describe('the local assistant retrieval', () => {
  it('keeps meaningful words, drops stopwords and a plural s', () => {
    expect(queryWords('How do I deploy contracts to the machines?')).toEqual(['deploy', 'contract', 'machine']);
  });

  it('matches whole words only, so "contract" does not find "contraction"', () => {
    const g = retrieve(sources, 'How do I deploy a contract to my machine?');
    expect(g.endpoints.map((e) => e.path)).toEqual(['/api/chain/{slug}/contracts']);
    expect(g.operators).toEqual([]);
    expect(g.kernel).toEqual(['Deploy a contract with care on your machine.']);
  });

  it('puts an operator named by id first and finds others by rare words', () => {
    expect(retrieve(sources, 'Is NM19 right here?').operators.map((o) => o.id)).toEqual(['NM19']);
    expect(retrieve(sources, 'schwarzschild radius please').operators.map((o) => o.id)).toEqual(['GR37']);
  });

  it('answers the same text for the same question and says when nothing matched', () => {
    const q = 'deploy a contract on a machine';
    expect(composeAnswer(q, retrieve(sources, q))).toBe(composeAnswer(q, retrieve(sources, q)));
    expect(composeAnswer('zzz yyy', retrieve(sources, 'zzz yyy'))).toContain('I found nothing');
  });
});
