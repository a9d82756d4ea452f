import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { BlobRepository } from './blob-repository.js';
import { loadCatalogue, type CatalogueSkill } from './skill-catalogue.js';
import { type AttachedSkill, type AttachedSkillRecord as AttachedDoc, type SkillRepository } from './skill-repository.js';

export type { AttachedSkill } from './skill-repository.js';

export interface SkillsService {
  /** Every skill of the catalogue, sorted by name. */
  catalogue(): Promise<CatalogueSkill[]>;
  /** A catalogue skill with its full body, exactly as attach persists it. */
  preview(name: string): Promise<CatalogueSkill>;
  /** Persists the skill's body for the agent; attaching the same body again changes nothing. */
  attach(uid: string, name: string): Promise<{ skill: AttachedSkill; changed: boolean }>;
  detach(uid: string, name: string): Promise<{ changed: boolean }>;
  list(uid: string): Promise<AttachedSkill[]>;
  /** The persisted body of an attached skill. */
  body(uid: string, name: string): Promise<string>;
}

export function createSkillsService(deps: { skillRecords: SkillRepository; clock: Clock; blobs: BlobRepository; dir: string }): SkillsService {
  const { skillRecords, clock, blobs } = deps;
  let loading: Promise<CatalogueSkill[]> | undefined;
  const catalogue = () => (loading ??= loadCatalogue(deps.dir));
  const publicOf = ({ name, description, bytes, sha256, attached_at }: AttachedDoc): AttachedSkill => ({ name, description, bytes, sha256, attached_at });

  async function find(name: string): Promise<CatalogueSkill> {
    const all = await catalogue();
    const skill = all.find((s) => s.name === name);
    if (!skill) throw errors.notFound(`No skill "${name}" in the catalogue; available: ${all.map((s) => s.name).join(', ')}`, { name });
    return skill;
  }

  return {
    catalogue,
    preview: find,

    async attach(uid, name) {
      const skill = await find(name);
      const existing = await skillRecords.byName(uid, name);
      if (existing?.sha256 === skill.sha256) return { skill: publicOf(existing), changed: false };
      const ref = await blobs.put(uid, Buffer.from(skill.body, 'utf8'), clock.tick());
      const doc: AttachedDoc = {
        uid,
        name,
        description: skill.description,
        bytes: skill.bytes,
        sha256: skill.sha256,
        attached_at: new Date(clock.now()).toISOString(),
        blob_seq: ref.seq,
      };
      let changed = true;
      const stored = await skillRecords.update(uid, name, (current) => {
        // A concurrent attach of the same body got there first: keep its record.
        if (current?.sha256 === skill.sha256) {
          changed = false;
          return undefined;
        }
        return doc;
      });
      return { skill: publicOf(stored!), changed };
    },

    async detach(uid, name) {
      return { changed: await skillRecords.delete(uid, name) };
    },

    async list(uid) {
      const docs = await skillRecords.listByUid(uid);
      return docs.map(publicOf).sort((a, b) => (a.name < b.name ? -1 : 1));
    },

    async body(uid, name) {
      const doc = await skillRecords.byName(uid, name);
      if (!doc) throw errors.notFound(`Skill "${name}" is not attached to ${uid}`, { name });
      return (await blobs.get(uid, { seq: doc.blob_seq, sha256: doc.sha256 })).toString('utf8');
    },
  };
}
