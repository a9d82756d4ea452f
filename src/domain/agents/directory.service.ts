import { errors } from '../../errors.js';
import { pageOf } from '../../lib/cursor.js';
import type { Store } from '../../storage/port.js';
import { createMachineRepository } from '../chain/machine-repository.js';
import { USERS, type UserRecord } from '../identity/identity.service.js';
import { ATTACHED_SKILLS } from './skills.service.js';
import { PROFILES, type AgentProfile } from './state.service.js';

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
  const machineRecords = createMachineRepository(store);

  async function entries(users: UserRecord[]): Promise<AgentEntry[]> {
    const wanted = new Set(users.map((u) => u.uid));
    const [profiles, skills, publicMachines] = await Promise.all([
      store.docs.list<AgentProfile>(PROFILES, (p) => wanted.has(p.uid)),
      store.docs.list<{ uid: string; name: string }>(ATTACHED_SKILLS, (s) => wanted.has(s.uid)),
      // Per user, from the owner and grant indexes: the public machines are never all read.
      Promise.all(users.map(async (u) => [u.uid, await machineRecords.publicSlugsOf(u.uid)] as const)),
    ]);
    const publicOf = new Map(publicMachines);
    const names = new Map(profiles.map((p) => [p.uid, p.display_name]));
    const by = <T>(list: T[], uidOf: (t: T) => string, value: (t: T) => string) => {
      const map = new Map<string, string[]>();
      for (const item of list) map.set(uidOf(item), [...(map.get(uidOf(item)) ?? []), value(item)]);
      return map;
    };
    const skillsOf = by(skills, (s) => s.uid, (s) => s.name);
    return users.map((user) => ({
      uid: user.uid,
      display_name: names.get(user.uid) ?? null,
      skills: (skillsOf.get(user.uid) ?? []).sort(),
      public_machines: publicOf.get(user.uid) ?? [],
      created_at: user.created_at,
    }));
  }

  return {
    async list(query) {
      const users = await store.docs.list<UserRecord>(USERS);
      let all = await entries(users);
      const q = query.q?.trim().toLowerCase();
      if (q) all = all.filter((a) => a.uid.toLowerCase().includes(q) || (a.display_name ?? '').toLowerCase().includes(q));
      const { page, next_cursor } = pageOf(all, query.limit, query.cursor);
      return { agents: page, next_cursor };
    },

    async get(uid) {
      const user = await store.docs.get<UserRecord>(USERS, uid);
      if (!user) throw errors.notFound(`No agent "${uid}"`, { uid });
      return (await entries([user]))[0]!;
    },
  };
}
