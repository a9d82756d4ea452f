import { errors } from '../../errors.js';
import { pageOf } from '../../lib/cursor.js';
import type { Store } from '../../storage/port.js';
import { createMachineRepository } from '../chain/machine-repository.js';
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
  const machineRecords = createMachineRepository(store);

  async function entries(users: UserRecord[]): Promise<AgentEntry[]> {
    const [profiles, skills, publicMachines] = await Promise.all([
      states.profilesOf(users.map((u) => u.uid)),
      attached.attachedTo(users.map((u) => u.uid)),
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
    const skillsOf = by(
      skills,
      (s) => s.uid,
      (s) => s.name,
    );
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
      let users = (await createUserRepository(store).page()).items;
      const q = query.q?.trim().toLowerCase();
      if (q) {
        const names = new Map((await states.profilesOf(users.map((u) => u.uid))).map((p) => [p.uid, p.display_name ?? '']));
        users = users.filter((u) => u.uid.toLowerCase().includes(q) || (names.get(u.uid) ?? '').toLowerCase().includes(q));
      }
      // Entries (skills, public machines: reads per agent) only for the page asked for.
      const { page, next_cursor } = pageOf(users, query.limit, query.cursor);
      return { agents: await entries(page), next_cursor };
    },

    async get(uid) {
      const user = await createUserRepository(store).byUid(uid);
      if (!user) throw errors.notFound(`No agent "${uid}"`, { uid });
      return (await entries([user]))[0]!;
    },
  };
}
