import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { canonicalJson } from '../../lib/canonical-json.js';
import type { RowInput } from '../../storage/port.js';
import type { NodeKeyRepository } from '../identity/node-key-repository.js';
import { storedSecret } from '../identity/stored-secret.js';
import type { MachineRecord } from './machine.js';
import { type PayloadRow, type ChainLogRepository } from './chain-log-repository.js';
import { onceUnlessFailed } from '../../lib/once.js';

/** One encrypted payload, stored in `payloads/<slug>` in the order of the chain rows it belongs to. */
/** What is sealed with a payload: the fields it is bound to (AES-GCM additional data). */
export interface PayloadBinding {
  slug: string;
  row_seq: number;
  transition_id: string;
}

const VAULT_KEY_ID = 'audit-payload';

/**
 * Encrypts row payloads at rest with AES-256-GCM. The master key is random, made once and kept in the
 * `node-keys` collection (secrets: never exported); each machine gets its own key derived from it with
 * HKDF-SHA256 over slug and genesis tick, and every ciphertext is bound to its row (slug, seq,
 * transition id), so a payload moved to another row fails to decrypt. The row's digest is checked by
 * the reader, so an altered digest shows as a mismatch rather than as a missing payload.
 */
export interface PayloadVault {
  /** Resolves once the master key is loaded; `seal` needs it. */
  ready(): Promise<void>;
  /**
   * Builds the stored form of a payload (synchronous: it runs inside a chain append). `json`, when
   * given, must be `canonicalJson(payload)`; it saves making it again.
   */
  seal(machine: MachineRecord, tick: number, binding: PayloadBinding, payload: unknown, json?: string): RowInput<PayloadRow>;
  /** The payload stored for a chain row (seq, transition id, tick), or undefined when the row kept none. */
  find(slug: string, rowSeq: number, transitionId: string, tick: number): Promise<PayloadRow | undefined>;
  /** Decrypts a stored payload; throws when it was altered or belongs to another row. */
  open(machine: MachineRecord, stored: PayloadRow, binding: PayloadBinding): unknown;
}

export function createPayloadVault(deps: { chainLog: ChainLogRepository; nodeKeyRecords: NodeKeyRepository; now: () => number }): PayloadVault {
  const { chainLog } = deps;
  let master: Buffer | undefined;
  const loading = onceUnlessFailed(() => load());
  const machineKeys = new Map<string, Buffer>();

  async function load(): Promise<void> {
    master = await storedSecret(deps.nodeKeyRecords, VAULT_KEY_ID, deps.now);
  }

  function keyOf(machine: MachineRecord): Buffer {
    if (!master) throw new Error('payload vault used before ready()');
    const id = `${machine.slug}|${machine.genesis_tick}`;
    let key = machineKeys.get(id);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', master, 'core-audit-payload-v1', `machine|${id}`, 32));
      machineKeys.set(id, key);
    }
    return key;
  }

  // IVs come from a pool refilled 256 at a time: one small randomBytes call per row showed in profiles.
  let ivPool = Buffer.alloc(0);
  let ivAt = 0;
  function nextIv(): Buffer {
    if (ivAt + 12 > ivPool.length) {
      ivPool = randomBytes(12 * 256);
      ivAt = 0;
    }
    ivAt += 12;
    return ivPool.subarray(ivAt - 12, ivAt);
  }

  const aad = (b: PayloadBinding): Buffer => Buffer.from(`${b.slug}|${b.row_seq}|${b.transition_id}`);

  return {
    ready() {
      if (master) return Promise.resolve();
      return loading();
    },

    seal(machine, tick, binding, payload, json) {
      const iv = nextIv();
      const cipher = createCipheriv('aes-256-gcm', keyOf(machine), iv);
      cipher.setAAD(aad(binding));
      const ct = Buffer.concat([cipher.update(json ?? canonicalJson(payload), 'utf8'), cipher.final()]);
      return {
        tick,
        type: 'payload',
        row_seq: binding.row_seq,
        transition_id: binding.transition_id,
        alg: 'A256GCM',
        iv: iv.toString('base64url'),
        ct: ct.toString('base64url'),
        tag: cipher.getAuthTag().toString('base64url'),
      };
    },

    async find(slug, rowSeq, transitionId, tick) {
      // Payload rows are appended in chain order, so row_seq never decreases: binary search by it.
      let lo = 0;
      let hi = await chainLog.payloadCount(slug);
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const row = await chainLog.payloadAt(slug, mid);
        if (row !== undefined && row.row_seq < rowSeq) lo = mid + 1;
        else hi = mid;
      }
      // A write that failed after its payload was queued can leave an orphan with the same row_seq.
      const match = (row: PayloadRow): boolean => row.row_seq === rowSeq && row.transition_id === transitionId;
      const near = (await chainLog.readPayloads(slug, { fromSeq: lo, limit: 8 })).find(match);
      if (near) return near;
      // Should an adapter ever commit payload rows out of chain order, they still share their row's tick.
      return (await chainLog.readPayloads(slug, { fromTick: tick, toTick: tick })).find(match);
    },

    open(machine, stored, binding) {
      const decipher = createDecipheriv('aes-256-gcm', keyOf(machine), Buffer.from(stored.iv, 'base64url'));
      decipher.setAAD(aad(binding));
      decipher.setAuthTag(Buffer.from(stored.tag, 'base64url'));
      const text = Buffer.concat([decipher.update(Buffer.from(stored.ct, 'base64url')), decipher.final()]).toString('utf8');
      return JSON.parse(text) as unknown;
    },
  };
}
