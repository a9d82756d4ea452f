import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);

describe('supported Node versions', () => {
  it('are stated in the README exactly as package.json engines allows them', () => {
    const engines = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } }).engines.node;
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    expect(readme).toContain(`\`${engines}\``);
    const floor = /^>=(\d+\.\d+)/.exec(engines)![1]!;
    expect(readme).toMatch(new RegExp(`^Node ${floor.replace('.', '\\.')} `, 'm'));
  });
});
