import { describe, expect, it } from 'vitest';
import { createBlobRepository } from '../../src/domain/agents/blob-repository.js';
import { createDelegationRepository } from '../../src/domain/agents/delegation-repository.js';
import { createFileRepository, type FileRecord } from '../../src/domain/agents/file-repository.js';
import { createSkillRepository, type AttachedSkillRecord } from '../../src/domain/agents/skill-repository.js';
import { createStateRepository } from '../../src/domain/agents/state-repository.js';
import { freshStore, type MakeStore } from './store-harness.js';

const file = (uid: string, path: string): FileRecord => ({
  uid,
  path,
  versions: [{ version: 1, bytes: 1, sha256: 's', encoding: 'utf8', tick: 1, created_at: '2026-01-01T00:00:00.000Z', blob_seq: 0 }],
});
const skill = (uid: string, name: string): AttachedSkillRecord => ({
  uid,
  name,
  description: 'd',
  bytes: 1,
  sha256: 's',
  attached_at: '2026-01-01T00:00:00.000Z',
  blob_seq: 0,
});

/** The agents' blob, file, skill, delegation and state repositories on every adapter. */
export function runAgentDataRepositoryContracts(name: string, makeStore: MakeStore): void {
  describe(`agent data repositories: ${name}`, () => {
    it('gives back blob content only for the digest it was stored under', async () => {
      const { store } = await freshStore(makeStore);
      const blobs = createBlobRepository(store);
      const ref = await blobs.put('u1', Buffer.from('hello'), 5);
      expect((await blobs.get('u1', ref)).toString()).toBe('hello');
      await expect(blobs.get('u1', { seq: ref.seq, sha256: '0'.repeat(64) })).rejects.toThrow(/does not match/);
      await expect(blobs.get('u2', ref)).rejects.toThrow(/missing/);
    });

    it('lists an agent’s files and skills without another agent’s', async () => {
      const { store } = await freshStore(makeStore);
      const files = createFileRepository(store);
      await files.update('u1', 'b.txt', () => file('u1', 'b.txt'));
      await files.update('u2', 'a.txt', () => file('u2', 'a.txt'));
      await files.update('u1', 'a.txt', () => file('u1', 'a.txt'));
      expect((await files.listByUid('u1')).map((f) => f.path)).toEqual(['b.txt', 'a.txt']);
      expect(await files.byPath('u2', 'a.txt')).toEqual(file('u2', 'a.txt'));
      const skills = createSkillRepository(store);
      await skills.update('u1', 'x', () => skill('u1', 'x'));
      await skills.update('u2', 'x', () => skill('u2', 'x'));
      expect(await skills.listByUid('u1')).toEqual([skill('u1', 'x')]);
      expect(await skills.delete('u1', 'x')).toBe(true);
      expect(await skills.delete('u1', 'x')).toBe(false);
      expect(await skills.byName('u2', 'x')).toEqual(skill('u2', 'x'));
    });

    it('reads the profiles and skills of a few agents or of many, the same either way', async () => {
      const { store } = await freshStore(makeStore);
      const states = createStateRepository(store);
      const skills = createSkillRepository(store);
      const uids = Array.from({ length: 40 }, (_, i) => `u${i}`);
      for (const uid of uids.filter((_, i) => i % 2 === 0)) {
        await states.updateProfile(uid, () => ({ uid, display_name: uid, updated_at: 't' }));
        await skills.update(uid, 'x', () => skill(uid, 'x'));
      }
      await states.updateProfile('other', () => ({ uid: 'other', display_name: 'o', updated_at: 't' }));
      const few = ['u0', 'u1', 'u2'];
      expect((await states.profilesOf(few)).map((p) => p.uid).sort()).toEqual(['u0', 'u2']);
      expect((await skills.attachedTo(few)).map((a) => a.uid).sort()).toEqual(['u0', 'u2']);
      const evens = uids.filter((_, i) => i % 2 === 0).sort();
      expect((await states.profilesOf(uids)).map((p) => p.uid).sort()).toEqual(evens);
      expect((await skills.attachedTo(uids)).map((a) => a.uid).sort()).toEqual(evens);
    });

    it('keeps delegations per agent with their audit log, newest first', async () => {
      const { store } = await freshStore(makeStore);
      const delegations = createDelegationRepository(store);
      const grant = { slug: 'm', grantee_uid: 'o', access: 'read' as const, created_at: 't' };
      await delegations.update('u1', () => ({ uid: 'u1', grants: { m: grant } }));
      expect((await delegations.byUid('u1'))?.grants['m']).toEqual(grant);
      for (const type of ['delegation.granted', 'delegation.revoked'] as const) {
        await delegations.appendEvent('u1', { type, tick: 1, slug: 'm', grantee_uid: 'o', access: 'read', actor_uid: 'u1', at: 't' });
      }
      expect((await delegations.recentEvents('u1', 5)).map((e) => e.type)).toEqual(['delegation.revoked', 'delegation.granted']);
      expect(await delegations.recentEvents('u2', 5)).toEqual([]);
    });

    it('appends states on the current head and keeps the profile apart', async () => {
      const { store } = await freshStore(makeStore);
      const states = createStateRepository(store);
      const protocol = { current_plan_id: null, current_plan_slug: null, locked_at: null, locked_ms: null };
      await states.append('u1', () => ({ type: 'state', tick: 1, state: { n: 1 }, protocol, updated_at: 't' }));
      const second = await states.append('u1', (head) => ({ type: 'state', tick: 2, state: { n: Number(head?.state['n']) + 1 }, protocol, updated_at: 't' }));
      expect(second.state).toEqual({ n: 2 });
      expect(await states.head('u1')).toEqual(second);
      await states.updateProfile('u1', () => ({ uid: 'u1', display_name: 'Ada', updated_at: 't' }));
      expect((await states.profile('u1'))?.display_name).toBe('Ada');
      expect(await states.profile('u2')).toBeUndefined();
    });
  });
}
