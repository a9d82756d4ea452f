import type { Store } from '../../storage/port.js';

/** A skill attached to an agent: metadata here, the persisted body in the agent's blob log. */
export interface AttachedSkill {
  name: string;
  description: string;
  bytes: number;
  sha256: string;
  attached_at: string;
}

/** An attachment as stored. */
export interface AttachedSkillRecord extends AttachedSkill {
  uid: string;
  blob_seq: number;
}

const ATTACHED_SKILLS = 'agent-skills';
const docId = (uid: string, name: string) => `${uid}/${name}`;

/** The skills attached to agents: the only module that names their collection. */
export interface SkillRepository {
  byName(uid: string, name: string): Promise<AttachedSkillRecord | undefined>;
  /** Read-modify-write of one attachment; returns what is stored afterwards. */
  update(
    uid: string,
    name: string,
    fn: (current: AttachedSkillRecord | undefined) => AttachedSkillRecord | undefined,
  ): Promise<AttachedSkillRecord | undefined>;
  /** Returns whether the skill was attached. */
  delete(uid: string, name: string): Promise<boolean>;
  /** The agent's attachments, in attach order (bounded by the catalogue). */
  listByUid(uid: string): Promise<AttachedSkillRecord[]>;
  /** The attachments of these agents: one indexed query per uid (a directory page), never a pass over the collection. */
  attachedTo(uids: readonly string[]): Promise<AttachedSkillRecord[]>;
}

export function createSkillRepository(store: Store): SkillRepository {
  return {
    byName: (uid, name) => store.docs.get<AttachedSkillRecord>(ATTACHED_SKILLS, docId(uid, name)),
    update: (uid, name, fn) => store.docs.update<AttachedSkillRecord>(ATTACHED_SKILLS, docId(uid, name), fn),
    delete: (uid, name) => store.docs.delete(ATTACHED_SKILLS, docId(uid, name)),
    listByUid: async (uid) => (await store.docs.find<AttachedSkillRecord>(ATTACHED_SKILLS, { uid })).items,
    async attachedTo(uids) {
      const lists = await Promise.all(uids.map(async (uid) => (await store.docs.find<AttachedSkillRecord>(ATTACHED_SKILLS, { uid })).items));
      return lists.flat();
    },
  };
}
