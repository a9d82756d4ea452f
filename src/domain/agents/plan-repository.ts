import type { Store } from '../../storage/port.js';
import { draftDocId, pairKey, versionDocId, type LockIntent, type PlanDoc, type PlanHead } from './plan-records.js';

const PLANS = 'agent-plans';
const PLAN_HEADS = 'agent-plan-heads';
const PLAN_INTENTS = 'agent-plan-intents';

/**
 * The plans of (agent, machine) pairs: version rows and drafts, the head (highest locked version, kept
 * to avoid scanning) and the lock intents. The only module that names their collections.
 */
export interface PlanRepository {
  /** The draft of the pair, if any. */
  draft(uid: string, slug: string): Promise<PlanDoc | undefined>;
  /** Version `version` of the pair (locked or superseded), if written. */
  version(uid: string, slug: string, version: number): Promise<PlanDoc | undefined>;
  /** Every row of the pair, draft included, in insertion order (bounded by the pair's versions). */
  rowsOf(uid: string, slug: string): Promise<PlanDoc[]>;
  /** A row by its document id (`row_id` of an intent). */
  byRowId(rowId: string): Promise<PlanDoc | undefined>;
  /** Read-modify-write of the pair's draft; returns what is stored afterwards. */
  updateDraft(uid: string, slug: string, fn: (current: PlanDoc | undefined) => PlanDoc | undefined): Promise<PlanDoc | undefined>;
  /** Deletes the pair's draft if its body is still `sha256` (a newer draft is kept). */
  deleteDraftIf(uid: string, slug: string, sha256: string): Promise<void>;
  /** The commit point of a lock: fails with `DuplicateKeyError` when the version row exists. */
  insertVersion(row: PlanDoc): Promise<void>;
  /** Read-modify-write of a version row; `fn` sees the stored row and returns undefined to leave it. */
  updateVersion(uid: string, slug: string, version: number, fn: (current: PlanDoc) => PlanDoc | undefined): Promise<void>;
  head(uid: string, slug: string): Promise<PlanHead | undefined>;
  /** Raises the head to `version`; never lowers it. */
  raiseHead(uid: string, slug: string, version: number): Promise<void>;
  intent(uid: string, slug: string): Promise<LockIntent | undefined>;
  /** Fails with `DuplicateKeyError` when the pair has an intent already. */
  insertIntent(intent: LockIntent): Promise<void>;
  deleteIntent(uid: string, slug: string): Promise<void>;
  /** The agent's pending intents (at most one per machine it locks plans on). */
  intentsOf(uid: string): Promise<LockIntent[]>;
}

export function createPlanRepository(store: Store): PlanRepository {
  return {
    draft: (uid, slug) => store.docs.get<PlanDoc>(PLANS, draftDocId(uid, slug)),
    version: (uid, slug, version) => store.docs.get<PlanDoc>(PLANS, versionDocId(uid, slug, version)),
    rowsOf: async (uid, slug) => (await store.docs.find<PlanDoc>(PLANS, { uid, slug })).items,
    byRowId: (rowId) => store.docs.get<PlanDoc>(PLANS, rowId),
    updateDraft: (uid, slug, fn) => store.docs.update<PlanDoc>(PLANS, draftDocId(uid, slug), fn),
    async deleteDraftIf(uid, slug, sha256) {
      await store.docs.deleteIf<PlanDoc>(PLANS, draftDocId(uid, slug), (draft) => draft.plan_sha256 === sha256);
    },
    insertVersion: (row) => store.docs.insert(PLANS, versionDocId(row.uid, row.slug, row.version!), row),
    async updateVersion(uid, slug, version, fn) {
      await store.docs.update<PlanDoc>(PLANS, versionDocId(uid, slug, version), (doc) => (doc ? fn(doc) : undefined));
    },
    head: (uid, slug) => store.docs.get<PlanHead>(PLAN_HEADS, pairKey(uid, slug)),
    async raiseHead(uid, slug, version) {
      await store.docs.update<PlanHead>(PLAN_HEADS, pairKey(uid, slug), (head) =>
        head && head.latest_version >= version ? undefined : { uid, slug, latest_version: version },
      );
    },
    intent: (uid, slug) => store.docs.get<LockIntent>(PLAN_INTENTS, pairKey(uid, slug)),
    insertIntent: (intent) => store.docs.insert(PLAN_INTENTS, pairKey(intent.uid, intent.slug), intent),
    async deleteIntent(uid, slug) {
      await store.docs.delete(PLAN_INTENTS, pairKey(uid, slug));
    },
    intentsOf: async (uid) => (await store.docs.find<LockIntent>(PLAN_INTENTS, { uid })).items,
  };
}
