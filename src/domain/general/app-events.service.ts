import { CoreError, errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { sha256Hex } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import type { ChainService } from '../chain/chain.service.js';
import type { MachinesService } from '../chain/machines.service.js';
import { hasRole } from '../identity/roles.js';

export interface AppEventInput {
  app: string;
  event: string;
  slug?: string | undefined;
  properties?: Record<string, unknown> | undefined;
}

export interface AppEventsService {
  /**
   * Appends an `app.tracked` row to the named machine's chain (the machine key's own machine when no
   * slug is given). Needs the operator role there; a machine the caller cannot read is NOT_FOUND.
   */
  track(input: AppEventInput, caller: Caller): Promise<{ audit_row_id: string; tick: number }>;
}

/** Row type of tracked app events; contracts may listen to it like to any row type. */
export const APP_EVENT_TYPE = 'app.tracked';
/** App events are small signals, not a data channel. */
const MAX_PROPERTIES_BYTES = 4096;

export function createAppEventsService(deps: { chain: ChainService; machines: MachinesService }): AppEventsService {
  const { chain, machines } = deps;
  return {
    async track(input, caller) {
      const slug = input.slug ?? caller.machine;
      if (slug === undefined) {
        throw errors.validation("Name the machine whose log records the event: give slug (or call with that machine's key)", {
          issues: [{ path: 'slug', message: 'required unless a machine key is used', code: 'missing_slug' }],
        });
      }
      const { machine, role } = await machines.readable(slug, caller);
      if (!hasRole(role, 'operator')) {
        throw errors.forbidden(`Tracking an app event writes to "${slug}": it needs the operator role there; you have ${role}`);
      }
      const properties = input.properties ?? {};
      if (Buffer.byteLength(canonicalJson(properties)) > MAX_PROPERTIES_BYTES) {
        throw new CoreError('PAYLOAD_TOO_LARGE', `properties exceed ${MAX_PROPERTIES_BYTES} bytes; send a smaller summary of the event`);
      }
      chain.assertWritable(machine);
      const payload = { app: input.app, event: input.event, properties };
      const row = await chain.append(machine, {
        type: APP_EVENT_TYPE,
        actor_uid: caller.uid,
        payload_digest: sha256Hex(canonicalJson(payload)),
        payload,
      });
      return { audit_row_id: row.id, tick: row.tick };
    },
  };
}
