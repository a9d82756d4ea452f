import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../../src/log.js';
import { createPipeline } from '../../../src/pipeline/invoke.js';
import { buildRegistry } from '../../../src/registry/registry.js';
import { defineAction, defineTool } from '../../../src/registry/types.js';
import type { Caller } from '../../../src/domain/identity/caller.js';
import type { Services } from '../../../src/domain/services.js';
import type { AppServices } from '../../../src/registry/app-ports.js';
import type { MachineRecord } from '../../../src/domain/chain/machine.js';

const owner: Caller = { uid: 'u_owner', credential: 'user-key' };
const machineNamed = (slug: string) => ({ slug, owner_uid: 'u_owner', is_public: false }) as MachineRecord;

/** A machines service that counts reads and answers `owner` for u_owner on any slug it knows. */
function fakeMachines(known: string[]) {
  const reads: string[] = [];
  const machines = {
    async readable(slug: string, caller: Caller) {
      reads.push(slug);
      if (!known.includes(slug)) throw Object.assign(new Error('gone'), { code: 'NOT_FOUND' });
      return { machine: machineNamed(slug), role: caller.uid === 'u_owner' ? 'owner' : 'none' };
    },
  };
  return { reads, services: { machines } as unknown as Services, app: {} as AppServices };
}

// A store that reports itself ready: the pipeline refuses writes while it is not.
const ready = () => ({ ready: true, checks: {} });

const registry = buildRegistry([
  defineTool({
    name: 'core_test',
    toolset: 'machines',
    title: 'test',
    description: 'test',
    actions: [
      defineAction({
        id: 't.anchor',
        method: 'POST',
        path: '/api/t/{motherSlug}/anchor',
        auth: 'bearer',
        role: 'admin',
        guards: 'motherSlug',
        area: 'test',
        summary: 'test',
        input: z.object({ motherSlug: z.string(), slug: z.string() }),
        output: z.object({ slug: z.string(), role: z.string() }),
        handler: async (_input, { machine, role }) => ({ slug: machine.slug, role }),
      }),
    ],
  }),
]);

describe('the machine a role check read', () => {
  it('is handed to the handler through the context, read once, from the input the route guards', async () => {
    const { reads, services, app } = fakeMachines(['mother', 'child']);
    const pipeline = createPipeline({ services, app, log: createLogger('silent'), readOnly: false, storeStatus: ready });
    const result = await pipeline.invokeAs(registry.byId.get('t.anchor')!, { motherSlug: 'mother', slug: 'child' }, owner, { surface: 'rest' });
    expect(result).toMatchObject({ ok: true, value: { slug: 'mother', role: 'owner' } });
    expect(reads).toEqual(['mother']);
  });

  it('refuses before the handler when the caller lacks the role on the guarded machine', async () => {
    const { services, app } = fakeMachines(['mother']);
    const pipeline = createPipeline({ services, app, log: createLogger('silent'), readOnly: false, storeStatus: ready });
    const stranger: Caller = { uid: 'u_other', credential: 'user-key' };
    const result = await pipeline.invokeAs(registry.byId.get('t.anchor')!, { motherSlug: 'mother', slug: 'x' }, stranger, { surface: 'rest' });
    expect(result).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: 'This operation needs the admin role on "mother"; you have none' } });
  });
});
