import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/lib/paths.js';
import { sourceFiles } from '../../helpers/source-files.js';

const root = packageRoot();

/**
 * Same-named schemas left unbound, with why. A contract definition is accepted loose (members a later
 * version adds, triggers as zod's discriminated union where the domain has one interface); the
 * contracts service checks it.
 */
const UNBOUND: Record<string, string> = {
  'tools/contracts/contracts.schemas.ts: TransitionSpec': 'part of the loose contract definition',
  'tools/contracts/contracts.schemas.ts: ExportEnvelope': 'carries the loose contract definition',
  'tools/machines/admins.tool.ts: Role': 'the roles one can grant (no owner): MachineRole, bound to RoleGrant',
};

/** Names the domain exports as an interface or a type alias. */
function domainTypeNames(): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles(path.join(root, 'src', 'domain'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/^export (?:interface|type) (\w+)/gm)) names.add(m[1]!);
  }
  return names;
}

/** Top-level schema constants of the tools, with how their initializer starts. */
function toolSchemas(): Array<{ where: string; name: string; init: string }> {
  return sourceFiles(path.join(root, 'tools')).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^(?:export )?const (\w+) = ([^;]{0,60})/gm)].map((m) => ({
      where: path.relative(root, file),
      name: m[1]!,
      // A shared shape wraps the schema: what matters is what it wraps.
      init: m[2]!.replace(/\s+/g, '').replace(/^sharedShape\(/, ''),
    })),
  );
}

describe('wire shapes', () => {
  it('binds every tool schema named like a domain type to that type with wireShape, so the two cannot drift apart', () => {
    const domain = domainTypeNames();
    const unbound = toolSchemas()
      .filter((s) => domain.has(s.name) && !s.init.startsWith('wireShape<'))
      .map((s) => `${s.where}: ${s.name}`)
      .filter((key) => !(key in UNBOUND));
    expect(unbound).toEqual([]);
  });

  it('finds the bound schemas it checks (the rule can fail)', () => {
    const domain = domainTypeNames();
    const bound = toolSchemas().filter((s) => domain.has(s.name) && s.init.startsWith('wireShape<'));
    expect(bound.map((s) => s.name)).toEqual(expect.arrayContaining(['WriteResult', 'Checkpoint', 'Delegation', 'Site']));
  });
});
