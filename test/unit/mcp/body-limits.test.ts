import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.js';
import { ANONYMOUS, type Caller } from '../../../src/domain/identity/caller.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { SOLVE_BODY_BYTES } from '../../../src/domain/solvers/body-bytes.js';
import { createMcpBodyLimits, PROTOCOL_BODY_BYTES } from '../../../src/transports/mcp/body-limits.js';

const registry = buildRegistry(allTools);
const KEYED = { ...ANONYMOUS, uid: 'u1' } as Caller;
const noHeaders = () => undefined;

/** The limit a body starting with `head` gets, as the reader asks for it once the head is in. */
function limitOf(limits: ReturnType<typeof createMcpBodyLimits>, caller: Caller, head: string, header: (name: string) => string | undefined = noHeaders) {
  const bound = limits.boundFor(caller, header);
  return { before: bound.limit, after: bound.refine!.limitOf(Buffer.from(head)), message: bound.tooLarge!(0) };
}

describe('POST /api/mcp body limits by method, tool and caller', () => {
  const limits = createMcpBodyLimits(registry, {});

  it('caps a caller before anything is seen: 14 MiB and the envelope with a key, 1 MiB and the envelope without', () => {
    expect(limits.boundFor(KEYED, noHeaders).limit).toBe(2 * SOLVE_BODY_BYTES + PROTOCOL_BODY_BYTES);
    expect(limits.boundFor(ANONYMOUS, noHeaders).limit).toBe(2 ** 20 + PROTOCOL_BODY_BYTES);
  });

  it("gives a tools/call its tool's limit for the caller, and everything else 64 KiB", () => {
    expect(limitOf(limits, KEYED, '{"method":"tools/call","params":{"name":"core_solve"').after).toBe(SOLVE_BODY_BYTES + PROTOCOL_BODY_BYTES);
    expect(limitOf(limits, ANONYMOUS, '{"method":"tools/call","params":{"name":"core_solve"').after).toBe(2 ** 20 + PROTOCOL_BODY_BYTES);
    expect(limitOf(limits, KEYED, '{"method":"tools/call","params":{"name":"core_nope"').after).toBe(PROTOCOL_BODY_BYTES);
    for (const method of ['initialize', 'server/discover', 'tools/list', 'resources/list', 'prompts/list', 'ping', 'notifications/initialized']) {
      expect(limitOf(limits, KEYED, `{"method":"${method}","params":{"_meta":{"pad":"`).after, method).toBe(PROTOCOL_BODY_BYTES);
    }
    expect(limitOf(limits, KEYED, '{"jsonrpc":"2.0","params":{"pad":"').after).toBe(PROTOCOL_BODY_BYTES);
  });

  it('lets Mcp-Method and Mcp-Name lower the limit only', () => {
    const header = (values: Record<string, string>) => (name: string) => values[name];
    const discoverHeader = header({ 'mcp-method': 'server/discover' });
    expect(limitOf(limits, KEYED, '{"method":"tools/call","params":{"name":"core_verify"', discoverHeader)).toMatchObject({
      before: PROTOCOL_BODY_BYTES,
      after: PROTOCOL_BODY_BYTES,
    });
    const callHeader = header({ 'mcp-method': 'tools/call', 'mcp-name': 'core_verify' });
    expect(limitOf(limits, KEYED, '{"method":"server/discover","params":{"_meta":{', callHeader).after).toBe(PROTOCOL_BODY_BYTES);
    // The header names the tool the head does not reach: its limit holds.
    expect(limitOf(limits, KEYED, '{"method":"tools/call","params":{"arguments":{"pad":"', callHeader).after).toBe(2 * SOLVE_BODY_BYTES + PROTOCOL_BODY_BYTES);
  });

  it('gives a tool hidden by CORE_TOOLSETS the limit of an unknown one', () => {
    const narrowed = createMcpBodyLimits(registry, { toolsets: ['platform'] });
    expect(narrowed.boundFor(KEYED, noHeaders).limit).toBe(2 ** 20 + PROTOCOL_BODY_BYTES);
    expect(limitOf(narrowed, KEYED, '{"method":"tools/call","params":{"name":"core_verify"')).toMatchObject({
      after: PROTOCOL_BODY_BYTES,
      message: expect.stringContaining('which is not a tool of this server'),
    });
  });
});
