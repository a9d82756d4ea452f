import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import type { LockStore } from '../../storage/port.js';
import type { ChainService } from '../chain/chain.service.js';
import type { MachineRecord } from '../chain/machine.js';
import type { BlobRepository } from './blob-repository.js';
import { createPlanLocker } from './plan-lock.js';
import { draftPlanId, normalizePlan, pairKey, parsePlanId, planBytes, type PlanBody, type PlanDoc } from './plan-records.js';
import type { StateService } from './state.service.js';
import type { PlanRepository } from './plan-repository.js';

/** A plan as shown to callers. */
export interface PlanView extends Omit<PlanDoc, 'blob_seq' | 'lock_id' | 'locked_ms'> {
  plan: PlanBody;
}

export interface PlansService {
  /** Creates or overwrites the one draft of (agent, machine). */
  saveDraft(uid: string, machine: MachineRecord, plan: PlanBody): Promise<PlanView>;
  /** Locks the given plan, or the draft, as the next version; see `createPlanLocker` for atomicity. */
  lock(
    uid: string,
    machine: MachineRecord,
    plan: PlanBody | undefined,
    actorUid: string,
  ): Promise<{ plan: PlanView; superseded: string[]; audit_row_id: string }>;
  current(uid: string, slug: string): Promise<PlanView | null>;
  draft(uid: string, slug: string): Promise<PlanView | null>;
  history(uid: string, slug: string, page: { limit: number; cursor?: string }): Promise<{ plans: PlanView[]; next_cursor: string | null }>;
  get(uid: string, slug: string, planId: string): Promise<PlanView>;
  /** Finishes any lock of the agent a crash left unfinished (before its protocol state is read). */
  recoverAgent(uid: string): Promise<void>;
}

export function createPlansService(deps: {
  planRecords: PlanRepository;
  locks: LockStore;
  clock: Clock;
  chain: ChainService;
  state: StateService;
  blobs: BlobRepository;
  loadMachine: (slug: string) => Promise<MachineRecord | undefined>;
}): PlansService {
  const { planRecords, locks, clock, chain, blobs } = deps;
  const locker = createPlanLocker(deps);
  // Every read and write of a pair runs after the pair's earlier ones, in every process sharing the
  // store, so readers see a lock whole and recovery never mistakes another process's lock in progress
  // for a crashed one.
  const serial = <T>(uid: string, slug: string, section: () => Promise<T>) =>
    locks.run(`plan-pair:${pairKey(uid, slug)}`, async () => {
      await locker.recover(uid, slug);
      return section();
    });

  async function viewOf(doc: PlanDoc): Promise<PlanView> {
    const body = await blobs.get(doc.uid, { seq: doc.blob_seq, sha256: doc.plan_sha256 });
    const { blob_seq: _b, lock_id: _l, locked_ms: _m, ...meta } = doc;
    return { ...meta, plan: JSON.parse(body.toString('utf8')) as PlanBody };
  }

  const viewOrNull = async (doc: PlanDoc | undefined) => (doc ? viewOf(doc) : null);

  async function storeBody(uid: string, plan: PlanBody): Promise<{ sha256: string; seq: number }> {
    const { bytes, sha256 } = planBytes(normalizePlan(plan));
    const ref = await blobs.put(uid, bytes, clock.tick());
    return { sha256, seq: ref.seq };
  }

  return {
    saveDraft(uid, machine, plan) {
      return serial(uid, machine.slug, async () => {
        const body = await storeBody(uid, plan);
        const iso = new Date(clock.now()).toISOString();
        const saved = await planRecords.updateDraft(uid, machine.slug, (current) => ({
          plan_id: draftPlanId(machine.slug),
          uid,
          slug: machine.slug,
          status: 'draft',
          version: null,
          plan_sha256: body.sha256,
          blob_seq: body.seq,
          tick: clock.tick(),
          superseded_by: null,
          created_at: current?.created_at ?? iso,
          updated_at: iso,
        }));
        return viewOf(saved!);
      });
    },

    lock(uid, machine, plan, actorUid) {
      return serial(uid, machine.slug, async () => {
        chain.assertWritable(machine);
        let source: { plan_sha256: string; blob_seq: number; from_draft: boolean };
        if (plan !== undefined) {
          const body = await storeBody(uid, plan);
          source = { plan_sha256: body.sha256, blob_seq: body.seq, from_draft: false };
        } else {
          const draft = await planRecords.draft(uid, machine.slug);
          if (!draft) {
            throw errors.unprocessable(`There is no draft plan for "${machine.slug}" to lock: save a draft first or pass \`plan\``, { slug: machine.slug });
          }
          source = { plan_sha256: draft.plan_sha256, blob_seq: draft.blob_seq, from_draft: true };
        }
        const result = await locker.lock(uid, machine, source, actorUid);
        return { plan: await viewOf(result.doc), superseded: result.superseded, audit_row_id: result.audit_row_id };
      });
    },

    current(uid, slug) {
      return serial(uid, slug, async () => {
        const head = await planRecords.head(uid, slug);
        if (!head) return null;
        const doc = await planRecords.version(uid, slug, head.latest_version);
        return doc?.status === 'locked' ? viewOf(doc) : null;
      });
    },

    draft: (uid, slug) => serial(uid, slug, async () => viewOrNull(await planRecords.draft(uid, slug))),

    history(uid, slug, page) {
      return serial(uid, slug, async () => {
        const head = await planRecords.head(uid, slug);
        const top = page.cursor === undefined ? (head?.latest_version ?? 0) : decodeCursor('before', page.cursor) - 1;
        const views: PlanView[] = [];
        for (let v = top; v >= 1 && views.length < page.limit; v--) {
          const view = await viewOrNull(await planRecords.version(uid, slug, v));
          if (view) views.push(view);
        }
        const last = views[views.length - 1];
        const more = last !== undefined && last.version !== null && last.version > 1;
        return { plans: views, next_cursor: more ? encodeCursor('before', last.version!) : null };
      });
    },

    get(uid, slug, planId) {
      return serial(uid, slug, async () => {
        const which = parsePlanId(slug, planId);
        const view =
          which === undefined ? null : await viewOrNull(await (which === 'draft' ? planRecords.draft(uid, slug) : planRecords.version(uid, slug, which)));
        if (!view) throw errors.notFound(`No plan "${planId}" of ${uid} for "${slug}"`, { plan_id: planId });
        return view;
      });
    },

    async recoverAgent(uid) {
      const pending = await planRecords.intentsOf(uid);
      for (const intent of pending) await serial(uid, intent.slug, async () => undefined);
    },
  };
}
