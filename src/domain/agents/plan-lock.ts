import { randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { digestOf } from '../../lib/hash.js';
import { DuplicateKeyError } from '../../storage/port.js';
import type { ChainService } from '../chain/chain.service.js';
import type { ChainRow } from '../chain/hash-chain.js';
import type { MachineRecord } from '../chain/machine.js';
import type { StateService } from './state.service.js';
import { versionDocId, versionPlanId, type LockIntent, type PlanDoc } from './plan-records.js';
import type { PlanRepository } from './plan-repository.js';

export interface LockSource {
  plan_sha256: string;
  blob_seq: number;
  from_draft: boolean;
}

export interface LockResult {
  doc: PlanDoc;
  superseded: string[];
  audit_row_id: string;
}

export interface PlanLocker {
  /** Locks a body already stored as a blob. Callers serialize per (agent, machine) across processes (`store.locks`). */
  lock(uid: string, machine: MachineRecord, source: LockSource, actorUid: string): Promise<LockResult>;
  /** Finishes or drops an unfinished lock of the pair, if one was left by a crash. Idempotent. */
  recover(uid: string, slug: string): Promise<void>;
}

const MAX_ATTEMPTS = 5;

/**
 * Plan locking, atomic by roll-forward. The commit point is one insert of the version row, whose
 * id is derived from (agent, machine, version), so two lockers can never both write version n: the
 * loser gets a DuplicateKeyError and takes n + 1. An intent record written just before it says a lock
 * is in progress; every step after the commit point (the `plan_locked` chain row, superseding earlier
 * versions, the head, the protocol state, removing the promoted draft, then the intent) can be replayed
 * and recognises work already done. A crash before the commit point leaves only an orphan blob and the
 * intent, which recovery drops: all or nothing.
 */
export function createPlanLocker(deps: {
  planRecords: PlanRepository;
  clock: Clock;
  chain: ChainService;
  state: StateService;
  loadMachine: (slug: string) => Promise<MachineRecord | undefined>;
}): PlanLocker {
  const { planRecords, clock, chain, state } = deps;

  async function nextVersion(uid: string, slug: string): Promise<number> {
    const head = await planRecords.head(uid, slug);
    let version = (head?.latest_version ?? 0) + 1;
    // The head may lag the rows after a crash; the rows decide.
    while (await planRecords.version(uid, slug, version)) version++;
    return version;
  }

  /** The `plan_locked` row of this lock, if a replayed lock already wrote it. */
  async function findAuditRow(machine: MachineRecord, intent: LockIntent): Promise<ChainRow | undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await chain.activity(machine, { type: 'plan_locked', limit: 100, ...(cursor ? { cursor } : {}) });
      for (const row of page.rows) {
        if (row.transition_id === intent.lock_id) return row;
        if (row.tick < intent.tick) return undefined;
      }
      if (!page.next_cursor) return undefined;
      cursor = page.next_cursor;
    }
  }

  async function complete(intent: LockIntent, machine: MachineRecord, replay: boolean): Promise<LockResult> {
    const { uid, slug, version, plan_id } = intent;
    const audit =
      (replay ? await findAuditRow(machine, intent) : undefined) ??
      (await chain.append(machine, {
        type: 'plan_locked',
        actor_uid: intent.actor_uid,
        transition_id: intent.lock_id,
        payload_digest: digestOf({ uid, slug, plan_id, version, plan_sha256: intent.plan_sha256 }),
      }));
    const iso = new Date(intent.locked_ms).toISOString();
    const superseded: string[] = [];
    for (let v = version - 1; v >= 1; v--) {
      const before = await planRecords.version(uid, slug, v);
      if (!before || before.status !== 'locked') break;
      await planRecords.updateVersion(uid, slug, v, (doc) =>
        doc.status === 'locked' ? { ...doc, status: 'superseded', superseded_by: plan_id, updated_at: iso } : undefined,
      );
      superseded.push(before.plan_id);
    }
    await planRecords.raiseHead(uid, slug, version);
    await state.setCurrentPlan(uid, { plan_id, slug, locked_ms: intent.locked_ms });
    if (intent.from_draft) await planRecords.deleteDraftIf(uid, slug, intent.plan_sha256);
    await planRecords.deleteIntent(uid, slug);
    const doc = (await planRecords.byRowId(intent.row_id))!;
    return { doc, superseded, audit_row_id: audit.id };
  }

  async function recover(uid: string, slug: string): Promise<void> {
    const intent = await planRecords.intent(uid, slug);
    if (!intent) return;
    const row = await planRecords.byRowId(intent.row_id);
    const machine = await deps.loadMachine(slug);
    if (!row || row.lock_id !== intent.lock_id || !machine) {
      await planRecords.deleteIntent(uid, slug);
      return;
    }
    await complete(intent, machine, true);
  }

  return {
    recover,
    async lock(uid, machine, source, actorUid) {
      const slug = machine.slug;
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        await recover(uid, slug);
        const version = await nextVersion(uid, slug);
        const nowMs = clock.now();
        const intent: LockIntent = {
          uid,
          slug,
          version,
          plan_id: versionPlanId(slug, version),
          row_id: versionDocId(uid, slug, version),
          lock_id: randomUUID(),
          plan_sha256: source.plan_sha256,
          blob_seq: source.blob_seq,
          from_draft: source.from_draft,
          tick: clock.tick(),
          locked_ms: nowMs,
          actor_uid: actorUid,
        };
        const iso = new Date(nowMs).toISOString();
        const row: PlanDoc = {
          plan_id: intent.plan_id,
          uid,
          slug,
          status: 'locked',
          version,
          plan_sha256: source.plan_sha256,
          blob_seq: source.blob_seq,
          tick: intent.tick,
          superseded_by: null,
          created_at: iso,
          updated_at: iso,
          lock_id: intent.lock_id,
          locked_ms: nowMs,
        };
        try {
          await planRecords.insertIntent(intent);
        } catch (error) {
          // Another process is locking this pair right now; try again after its intent resolves.
          if (error instanceof DuplicateKeyError) continue;
          throw error;
        }
        try {
          await planRecords.insertVersion(row);
        } catch (error) {
          await planRecords.deleteIntent(uid, slug);
          if (error instanceof DuplicateKeyError) continue;
          throw error;
        }
        return complete(intent, machine, false);
      }
      throw errors.conflict(`Another lock of this plan is in progress for "${slug}"; try again`, { slug });
    },
  };
}
