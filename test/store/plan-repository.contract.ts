import { describe, expect, it } from 'vitest';
import type { LockIntent, PlanDoc } from '../../src/domain/agents/plan-records.js';
import { createPlanRepository } from '../../src/domain/agents/plan-repository.js';
import { DuplicateKeyError } from '../../src/storage/port.js';
import { freshStore, type MakeStore } from './store-harness.js';

const row = (uid: string, slug: string, version: number | null, sha = 'a'): PlanDoc => ({
  plan_id: version === null ? `${slug}@draft` : `${slug}@v${version}`,
  uid,
  slug,
  status: version === null ? 'draft' : 'locked',
  version,
  plan_sha256: sha,
  blob_seq: 0,
  tick: 1,
  superseded_by: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

const intent = (uid: string, slug: string): LockIntent => ({
  uid,
  slug,
  version: 1,
  plan_id: `${slug}@v1`,
  row_id: `${uid}/${slug}/v1`,
  lock_id: 'l1',
  plan_sha256: 'a',
  blob_seq: 0,
  from_draft: false,
  tick: 1,
  locked_ms: 0,
  actor_uid: uid,
});

/** The plan repository (version rows, drafts, heads, lock intents) on every adapter. */
export function runPlanRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`plan repository: ${name}`, () => {
    it('writes each version once, keeps the draft apart and deletes it only while its body is unchanged', async () => {
      const { store } = await freshStore(makeStore);
      const plans = createPlanRepository(store);
      await plans.insertVersion(row('u1', 'm', 1));
      await expect(plans.insertVersion(row('u1', 'm', 1))).rejects.toBeInstanceOf(DuplicateKeyError);
      await plans.updateDraft('u1', 'm', () => row('u1', 'm', null, 'b'));
      expect((await plans.version('u1', 'm', 1))?.plan_id).toBe('m@v1');
      expect(await plans.byRowId('u1/m/v1')).toEqual(await plans.version('u1', 'm', 1));
      expect((await plans.draft('u1', 'm'))?.plan_sha256).toBe('b');
      expect((await plans.rowsOf('u1', 'm')).map((p) => p.plan_id)).toEqual(['m@v1', 'm@draft']);
      await plans.deleteDraftIf('u1', 'm', 'a');
      expect(await plans.draft('u1', 'm')).toBeDefined();
      await plans.deleteDraftIf('u1', 'm', 'b');
      expect(await plans.draft('u1', 'm')).toBeUndefined();
      await plans.updateVersion('u1', 'm', 1, (p) => ({ ...p, status: 'superseded' }));
      await plans.updateVersion('u1', 'm', 7, () => row('u1', 'm', 7));
      expect((await plans.version('u1', 'm', 1))?.status).toBe('superseded');
      expect(await plans.version('u1', 'm', 7)).toBeUndefined();
    });

    it('raises the head but never lowers it, and finds an agent’s intents across machines', async () => {
      const { store } = await freshStore(makeStore);
      const plans = createPlanRepository(store);
      await plans.raiseHead('u1', 'm', 3);
      await plans.raiseHead('u1', 'm', 2);
      expect((await plans.head('u1', 'm'))?.latest_version).toBe(3);
      await plans.insertIntent(intent('u1', 'm'));
      await plans.insertIntent(intent('u1', 'n'));
      await plans.insertIntent(intent('u2', 'm'));
      await expect(plans.insertIntent(intent('u1', 'm'))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect((await plans.intentsOf('u1')).map((i) => i.slug)).toEqual(['m', 'n']);
      await plans.deleteIntent('u1', 'm');
      expect(await plans.intent('u1', 'm')).toBeUndefined();
      expect((await plans.intentsOf('u1')).map((i) => i.slug)).toEqual(['n']);
    });
  });
}
