import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../../src/log.js';
import { createPipeline } from '../../../src/pipeline/invoke.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { defineAction, defineTool, type ResponseKind } from '../../../src/registry/types.js';
import type { Caller } from '../../../src/domain/identity/caller.js';
import type { Services } from '../../../src/domain/services.js';
import type { AppServices } from '../../../src/registry/app-ports.js';

// What a handler with a bug might answer: the declared output says `value` is a number.
const answer = { value: 'not-a-number' } as unknown as { value: number };
const action = (id: string, extra: { response?: ResponseKind }) =>
  defineAction({
    id,
    method: 'GET',
    path: `/api/${id.replace('.', '/')}`,
    auth: 'public',
    area: 'test',
    summary: 'test',
    input: z.object({}),
    output: z.object({ value: z.number() }),
    ...extra,
    handler: async () => answer,
  });
const registry = buildRegistry([
  defineTool({
    name: 'core_test',
    toolset: 'platform',
    title: 'test',
    description: 'test',
    actions: [action('t.checked', {}), action('t.relayed', { response: { kind: 'relay' } })],
  }),
]);
const anonymous: Caller = { uid: null, credential: 'none' };
const pipeline = createPipeline({
  services: {} as Services,
  app: {} as AppServices,
  log: createLogger('silent'),
  readOnly: false,
  storeStatus: () => ({ ready: true, checks: {} }),
});

describe('output check', () => {
  it('refuses an answer that does not match the declared output, as INTERNAL', async () => {
    const result = await pipeline.invokeAs(registry.byId.get('t.checked')!, {}, anonymous, { surface: 'rest' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: 'output of t.checked does not match its schema' } });
  });

  it('passes on an answer relayed from another operation (already checked there) unchanged', async () => {
    const result = await pipeline.invokeAs(registry.byId.get('t.relayed')!, {}, anonymous, { surface: 'rest' });
    expect(result).toMatchObject({ ok: true, value: answer });
  });
});
