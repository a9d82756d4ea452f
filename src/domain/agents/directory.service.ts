import { errors } from '../../errors.js';
import { pageOf } from '../../lib/cursor.js';
import type { Store } from '../../storage/port.js';
import { GRANTS, MACHINES, type MachineRecord, type RoleGrant } from '../chain/machine.js';
import { createUserRepository, type UserRecord } from '../identity/user-repository.js';
import { createSkillRepository } from './skill-repository.js';
import { createStateRepository } from './state-repository.js';

/** An agent's public directory entry: nothing that is not already public elsewhere or meant to be. */
export interface AgentEntry {
  uid: string;
  display_name: string | null;
  skills: string[];
  public_machines: string[];
  created_at: string;
}

export interface DirectoryService {
  list(query: { q?: string; limit: number; cursor?: string }): Promise<{ agents: AgentEntry[]; next_cursor: string | null }>;
  get(uid: string): Promise<AgentEntry>;
}

/**
 * The public directory. Every identity is an agent; its display name is the `display_name` member of
 * its state (public by design), its skills are those attached, and its machines are the public ones it
 * owns or holds a role on. Private machines never appear, not even as a count.
 */
export function createDirectoryService(deps: { store: Store }): DirectoryService {
  const { store } = deps;
  const attached = createSkillRepository(store);
  const states = createStateRepository(store);

  async function entries(users: UserRecord[]): Promise<AgentEntry[]> {
    const wanted = new Set(users.map((u) => u.uid));
    const [profiles, skills, machines, grants] = await Promise.all([
      states.profilesOf(users.map((u) => u.uid)),
      attached.attachedTo(users.map((u) => u.uid)),
      store.docs.list<MachineRecord>(MACHINES, (m) => m.is_public),
      store.docs.list<RoleGrant>(GRANTS, (g) => wanted.has(g.uid)),
    ]);
    const publicSlugs = new Set(machines.map((m) => m.slug));
    const names = new Map(profiles.map((p) => [p.uid, p.display_name]));
    const by = <T>(list: T[], uidOf: (t: T) => string, value: (t: T) => string) => {
      const map = new Map<string, string[]>();
      for (const item of list) map.set(uidOf(item), [...(map.get(uidOf(item)) ?? []), value(item)]);
      return map;
    };
    const skillsOf = by(skills, (s) => s.uid, (s) => s.name);
    const owned = by(machines, (m) => m.owner_uid, (m) => m.slug);
    const member = by(grants.filter((g) => publicSlugs.has(g.slug)), (g) => g.uid, (g) => g.slug);
    return users.map((user) => ({
      uid: user.uid,
      display_name: names.get(user.uid) ?? null,
      skills: (skillsOf.get(user.uid) ?? []).sort(),
      public_machines: [...new Set([...(owned.get(user.uid) ?? []), ...(member.get(user.uid) ?? [])])].sort(),
      created_at: user.created_at,
    }));
  }

  return {
    async list(query) {
      const users = (await createUserRepository(store).page()).items;
      let all = await entries(users);
      const q = query.q?.trim().toLowerCase();
      if (q) all = all.filter((a) => a.uid.toLowerCase().includes(q) || (a.display_name ?? '').toLowerCase().includes(q));
      const { page, next_cursor } = pageOf(all, query.limit, query.cursor);
      return { agents: page, next_cursor };
    },

    async get(uid) {
      const user = await createUserRepository(store).byUid(uid);
      if (!user) throw errors.notFound(`No agent "${uid}"`, { uid });
      return (await entries([user]))[0]!;
    },
  };
}
