import { expect, it } from 'vitest';
import { z } from 'zod';
import type { ActionDef, ToolDef, Toolset } from '../../../src/registry/types.js';

type JsonSchema = {
  type?: string;
  properties?: Record<string, { type?: string; description?: string }>;
  required?: string[];
};

/** What one toolset's test file expects of its tools, beyond the checks every toolset shares. */
export interface ToolsetExpectation {
  /** The tool names, in the order the file lists the tools. */
  tools: string[];
  /** Every operation as `METHOD /path auth`, followed by the minimum role when the action has one. */
  operations: string[];
  /** The service area of every action, or how to tell it from the action. */
  area: string | ((action: ActionDef) => string);
  /** The shape of every operation id; a lowercase prefix, a dot and a verbNoun unless given. */
  idPattern?: RegExp;
  /** Every JSON output's `ok` is the constant `true`, not just a boolean. */
  okAlwaysTrue?: boolean;
  /** Every input field carries a description. */
  describedInputs?: boolean;
  /** Operations that answer a foreign document (OpenAPI) or another operation's answer, not `{ ok, ... }`. */
  passThroughOutputs?: string[];
}

const inputOf = (action: ActionDef) => z.toJSONSchema(action.input, { io: 'input' }) as JsonSchema;
const outputOf = (action: ActionDef) => z.toJSONSchema(action.output, { io: 'output' }) as JsonSchema;

/** The action with operation id `id` among `tools`; throws when there is none. */
export function findAction(tools: ToolDef[], id: string): ActionDef {
  const found = tools.flatMap((tool) => tool.actions).find((action) => action.id === id);
  if (!found) throw new Error(`no action ${id}`);
  return found;
}

/** Registers, in the current describe block, the checks every toolset's declarations must pass. */
export function describeToolset(toolset: Toolset, tools: ToolDef[], expected: ToolsetExpectation): void {
  const actions = tools.flatMap((tool) => tool.actions.map((action) => ({ tool, action })));

  it(`declares its ${expected.tools.length} tools with unique core_ names in the ${toolset} toolset`, () => {
    expect(tools.map((tool) => tool.name)).toEqual(expected.tools);
    expect(new Set(expected.tools).size).toBe(tools.length);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^core_[a-z0-9_]{1,35}$/);
      expect(tool.toolset, tool.name).toBe(toolset);
      expect(tool.actions.length, tool.name).toBeGreaterThan(0);
    }
  });

  it('covers exactly its operations, each route once, with their auth rule and role', () => {
    const declared = actions.map(({ action }) => [action.method, action.path, action.auth, action.role].filter(Boolean).join(' '));
    expect([...declared].sort()).toEqual([...expected.operations].sort());
    const routes = actions.map(({ action }) => `${action.method} ${action.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('gives every action a unique area.verbNoun id and a unique snake_case action name inside its tool', () => {
    const ids = actions.map(({ action }) => action.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(expected.idPattern ?? /^[a-z]+\.[a-z][A-Za-z0-9]*$/);
    for (const tool of tools) {
      const names = tool.actions.map((action) => action.action);
      for (const name of names) expect(name, tool.name).toMatch(/^[a-z][a-z_]*$/);
      expect(new Set(names).size, tool.name).toBe(names.length);
    }
  });

  it('puts every action in its service area', () => {
    for (const { action } of actions) {
      expect(action.area, action.id).toBe(typeof expected.area === 'string' ? expected.area : expected.area(action));
    }
  });

  it('uses only the neutral words of the spec', () => {
    const text = JSON.stringify(actions.map(({ tool, action }) => [tool.description, action.summary, inputOf(action), outputOf(action)]));
    expect(text).not.toMatch(/zeq|zid|hulya/i);
  });

  it.each(actions.map(({ tool, action }) => [`${tool.name} ${action.action}`, action] as const))(
    '%s takes its path params as required strings and converts its schemas to JSON Schema',
    (_name, action) => {
      expect(action.summary.length).toBeGreaterThan(20);
      const input = inputOf(action);
      expect(input.type).toBe('object');
      for (const [, param] of action.path.matchAll(/\{([^}]+)\}/g)) {
        expect(input.properties?.[param!]?.type, `${param} is a string`).toBe('string');
        expect(input.required ?? [], `${param} is required`).toContain(param);
      }
      if (expected.describedInputs) {
        for (const [field, schema] of Object.entries(input.properties ?? {})) {
          expect(schema.description, `${field} has a description`).toBeTruthy();
        }
      }
      const output = outputOf(action);
      if (action.response?.kind === 'raw') {
        expect(output.type).toBe('string');
        return;
      }
      expect(output.type).toBe('object');
      const fields = Object.keys(output.properties ?? {});
      if (action.response?.kind === 'stream') {
        expect(fields).toEqual(expect.arrayContaining(['id', 'event', 'data']));
        expect(Object.keys(input.properties ?? {})).toEqual(expect.arrayContaining(['max_events', 'max_ms', 'last_event_id']));
      } else if (!expected.passThroughOutputs?.includes(action.id)) {
        expect(fields[0]).toBe('ok');
        expect(output.properties?.ok).toEqual(expected.okAlwaysTrue ? { type: 'boolean', const: true } : expect.objectContaining({ type: 'boolean' }));
      }
    },
  );
}
