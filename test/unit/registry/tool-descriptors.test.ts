import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.js';
import { isLabelOf } from '../../../src/registry/descriptor-notes.js';
import { mcpToolsOf, type McpToolDescriptor } from '../../../src/registry/mcp-tools.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { TOOLSETS } from '../../../src/registry/types.js';
import { VALIDATION_KEYWORDS } from '../../../src/registry/typed-branches.js';
import { SERVER_INSTRUCTIONS } from '../../../src/transports/mcp/instructions.js';
import { tokensOf } from '../../helpers/tokens.js';

const registry = buildRegistry(allTools);
const tools = mcpToolsOf(registry);

/** Every surface a client can be given: the default, read-only, and each toolset alone. */
const surfaces: [string, McpToolDescriptor[]][] = [
  ['default', tools],
  ['read-only', mcpToolsOf(registry, { readOnly: true })],
  ...TOOLSETS.map((t): [string, McpToolDescriptor[]] => [`toolset ${t}`, mcpToolsOf(registry, { toolsets: [t] })]),
];

type Node = Record<string, unknown>;

/** Every subschema of a schema, with its path. */
function* walk(node: unknown, path = ''): Generator<[string, Node]> {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const schema = node as Node;
  yield [path, schema];
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Node)) yield* walk(v, `${path}.${k}`);
  if (typeof schema.items === 'object') yield* walk(schema.items, `${path}[]`);
  if (typeof schema.additionalProperties === 'object') yield* walk(schema.additionalProperties, `${path}{}`);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(schema[key])) for (const s of schema[key] as unknown[]) yield* walk(s, `${path}|`);
}

/**
 * The part of JSON Schema the descriptors use (type, enum, properties, required, items,
 * additionalProperties), checked as a strict client would before sending a call.
 */
function violations(schema: Node, value: unknown, path = ''): string[] {
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
  if (types.length > 0 && !types.includes(typeOf(value)) && !(types.includes('number') && typeOf(value) === 'integer'))
    return [`${path}: expected ${types.join('|')}`];
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return [`${path}: not one of ${schema.enum.join(', ')}`];
  const out: string[] = [];
  if (Array.isArray(value) && typeof schema.items === 'object') value.forEach((v, i) => out.push(...violations(schema.items as Node, v, `${path}[${i}]`)));
  if (typeOf(value) === 'object') {
    const obj = value as Node;
    const props = (schema.properties ?? {}) as Record<string, Node>;
    for (const name of (schema.required ?? []) as string[]) if (!(name in obj)) out.push(`${path}.${name}: required`);
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) out.push(...violations(props[k], v, `${path}.${k}`));
      else if (schema.additionalProperties === false) out.push(`${path}.${k}: not allowed`);
      else if (typeof schema.additionalProperties === 'object') out.push(...violations(schema.additionalProperties as Node, v, `${path}.${k}`));
    }
  }
  return out;
}

describe('the tools/list an agent loads', () => {
  it('costs at most 15,000 tokens (o200k_base) for the 57 default tools, and no tool more than 2,000', () => {
    expect(tools).toHaveLength(57);
    const total = tokensOf({ tools });
    expect(total, `tools/list is ${total} tokens`).toBeLessThanOrEqual(15_000);
    for (const tool of tools) expect(tokensOf(tool), tool.name).toBeLessThanOrEqual(2_000);
  });

  it('keeps every description and the server instructions within 2,048 characters', () => {
    for (const [, list] of surfaces) for (const tool of list) expect(tool.description.length, tool.name).toBeLessThanOrEqual(2_048);
    expect(SERVER_INSTRUCTIONS.length).toBeLessThanOrEqual(2_048);
  });

  it('states no REST path, auth rule or per-field "required by" list in descriptions', () => {
    for (const tool of tools) {
      expect(tool.description, tool.name).not.toMatch(/\b(GET|POST|PUT|PATCH|DELETE) \/api\//);
      expect(tool.description, tool.name).not.toMatch(/key required|required by|optional for/);
      for (const [path, node] of walk(tool.inputSchema)) {
        if (typeof node.description === 'string') expect(node.description, `${tool.name}${path}`).not.toMatch(/required by|optional for/);
      }
    }
  });

  it('spends nothing on a note the field name already says: no empty or label-only description, no off or empty default', () => {
    const idle: string[] = [];
    for (const tool of tools) {
      for (const [path, node] of walk(tool.inputSchema)) {
        const field = /\.([^.[\]{}|]+)$/.exec(path)?.[1];
        if (field === undefined) continue;
        if (typeof node.description === 'string' && isLabelOf(field, node.description)) idle.push(`${tool.name}${path}: "${node.description}"`);
        if (node.default === false || (typeof node.default === 'object' && node.default !== null && Object.keys(node.default).length === 0))
          idle.push(`${tool.name}${path}: default`);
      }
    }
    expect(idle).toEqual([]);
  });

  it('names each action with the fields it requires', () => {
    const tally = tools.find((t) => t.name === 'core_tally')!;
    expect(tally.description).toContain('Actions (all require slug):');
    expect(tally.description).toMatch(/^genesis\(name, symbol, max_supply, mint_rate_per_tick\): /m);
    expect(tally.description).toMatch(/^get_supply: /m);
  });
});

describe('the input schemas of every surface', () => {
  it('use no oneOf, allOf, $ref, $defs, propertyNames or look-around pattern, and anyOf only of single-typed branches', () => {
    const found: string[] = [];
    for (const [surface, list] of surfaces) {
      for (const tool of list) {
        expect(tool.inputSchema.type, tool.name).toBe('object');
        const text = JSON.stringify(tool.inputSchema);
        for (const word of ['oneOf', 'allOf', '$ref', '$defs', 'propertyNames', 'x-core-shape']) {
          if (text.includes(`"${word}"`)) found.push(`${surface} ${tool.name}: ${word}`);
        }
        for (const [path, node] of walk(tool.inputSchema)) {
          if (typeof node.pattern === 'string' && /\(\?<?[=!]/.test(node.pattern)) found.push(`${surface} ${tool.name}${path}: look-around`);
          // A nullable or many-typed value: one branch per type, never a union of two object shapes.
          if (Array.isArray(node.anyOf)) {
            const types = (node.anyOf as Node[]).map((b) => b.type);
            if (types.some((t) => typeof t !== 'string') || new Set(types).size !== types.length) found.push(`${surface} ${tool.name}${path}: anyOf of shapes`);
            if ('type' in node) found.push(`${surface} ${tool.name}${path}: anyOf beside a type`);
          }
        }
      }
    }
    expect(found).toEqual([]);
  });

  it("pass the MCP Inspector CLI's portability rules: no type list, and no schema without a validation keyword", () => {
    const found: string[] = [];
    for (const [surface, list] of surfaces) {
      for (const tool of list) {
        for (const [path, node] of walk(tool.inputSchema)) {
          if (Array.isArray(node.type)) found.push(`${surface} ${tool.name}${path}: type ${JSON.stringify(node.type)}`);
          if (!VALIDATION_KEYWORDS.some((k) => k in node)) found.push(`${surface} ${tool.name}${path}: no validation keyword`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('write a nullable field as its type or null, and a value of any type as one branch per JSON type', () => {
    const settings = tools.find((t) => t.name === 'core_machine_settings')!.inputSchema.properties as Record<string, Node>;
    expect(settings.display_name!.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
    const verify = tools.find((t) => t.name === 'core_verify')!.inputSchema.properties as Record<string, Node>;
    expect((verify.output!.anyOf as Node[]).map((b) => b.type)).toEqual(['object', 'array', 'string', 'number', 'boolean', 'null']);
  });

  it('keep every member of a free-form object: a map without fields says which members it takes', () => {
    for (const tool of tools) {
      for (const [path, node] of walk(tool.inputSchema)) {
        if (node.type !== 'object' || node.properties !== undefined) continue;
        expect(node.additionalProperties === true || typeof node.additionalProperties === 'object', `${tool.name}${path}`).toBe(true);
      }
    }
  });

  it("give date-times as a format, not zod's 338-character pattern", () => {
    const expiry = tools.find((t) => t.name === 'core_api_keys')!.inputSchema.properties as Record<string, Node>;
    expect(expiry.expires_at).toEqual(expect.objectContaining({ type: 'string', format: 'date-time' }));
    expect(expiry.expires_at!.pattern).toBeUndefined();
  });
});

describe('the contract definition', () => {
  const deploy = tools.find((t) => t.name === 'core_contract_deploy')!;
  const definition = (deploy.inputSchema.properties as Record<string, Node>).definition!;

  it('is spelled out in core_contract_deploy only; the other tools point there', () => {
    const spelled = tools.filter((t) => JSON.stringify(t.inputSchema).includes('"transitions":{'));
    expect(spelled.map((t) => t.name)).toEqual(['core_contract_deploy']);
    for (const name of ['core_contract_update', 'core_contract_simulate']) {
      const field = (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, Node>).definition!;
      expect(field).toEqual({
        type: 'object',
        additionalProperties: true,
        description: expect.stringContaining('full schema: the "definition" input of core_contract_deploy'),
      });
    }
    const envelope = (tools.find((t) => t.name === 'core_contract_transfer')!.inputSchema.properties as Record<string, Node>).envelope!;
    expect(envelope.description).toContain('pass it as core_contract_transfer export returned it');
    expect(envelope.properties).toBeUndefined();
  });

  it('accepts, as a client checking the schema would, a definition with every and cron triggers and an emit post-action', () => {
    const def = {
      name: 'heartbeat',
      states: { idle: { initial: true }, alarm: {} },
      transitions: [
        { from: 'idle', to: 'idle', operator: 'KO42', trigger: { kind: 'every', every_ticks: 60 } },
        {
          from: 'idle',
          to: 'alarm',
          operator: 'KO42',
          trigger: { kind: 'cron', cron: '0 9 * * 1-5' },
          post_actions: [{ type: 'emit', event: 'morning', payload: { n: 1 } }],
        },
        {
          from: 'alarm',
          to: 'idle',
          operator: 'KO42',
          trigger: { kind: 'on_aggregate', event: 'ack', within_ticks: 10, aggregate: { fn: 'count' }, op: '>=', threshold: 3 },
          pre_actions: [{ type: 'set_state', state: 'idle' }],
        },
      ],
    };
    expect(violations(definition, def)).toEqual([]);
    expect(violations(deploy.inputSchema, { action: 'create_custom', slug: 'm', definition: def })).toEqual([]);
    // The check can fail: a trigger kind that does not exist is refused.
    expect(violations(definition, { ...def, transitions: [{ from: 'idle', to: 'idle', trigger: { kind: 'hourly' } }] })).not.toEqual([]);
  });

  it('explains each trigger kind and action type in one enum', () => {
    const transition = ((definition.properties as Record<string, Node>).transitions!.items as Node).properties as Record<string, Node>;
    const kind = (transition.trigger!.properties as Record<string, Node>).kind!;
    expect(kind.enum).toEqual(['one_shot', 'every', 'recurring', 'cron', 'on_event', 'on_events', 'on_aggregate']);
    expect(kind.description).toContain('every|recurring: Fires every N ticks');
    expect(transition.post_actions!.description).toContain('same shape as pre_actions');
  });
});
