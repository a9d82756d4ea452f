import { errors } from '../../errors.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import type { Store } from '../../storage/port.js';
import { createMachineRepository } from '../chain/machine-repository.js';
import { createUserRepository, type UserRecord } from '../identity/user-repository.js';
import { createSkillRepository } from './skill-repository.js';
import { createStateRepository } from './state-repository.js';

/** Most users read per page while a search scans them (the first page holds what the page needs, each next one twice as many). */
const MAX_SCAN_PAGE = 400;

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
  const userRecords = createUserRepository(store);

  /**
   * The first `wanted` users, in creation order, whose uid or display name contains `q`. No index
   * answers a substring, so this scans the users a page at a time, but stops as soon as it has
   * `wanted` matches (offset + limit + 1): a search reads about as many users as its page needs,
   * all of them only when fewer match.
   */
  async function search(q: string, wanted: number): Promise<UserRecord[]> {
    const found: UserRecord[] = [];
    let after: string | undefined;
    let size = Math.min(wanted, MAX_SCAN_PAGE);
    do {
      const page = await userRecords.page({ limit: size, ...(after === undefined ? {} : { after }) });
      size = Math.min(size * 2, MAX_SCAN_PAGE);
      const names = new Map((await states.profilesOf(page.items.map((u) => u.uid))).map((p) => [p.uid, p.display_name ?? '']));
      for (const user of page.items) {
        if (!user.uid.toLowerCase().includes(q) && !(names.get(user.uid) ?? '').toLowerCase().includes(q)) continue;
        found.push(user);
        if (found.length === wanted) return found;
      }
      after = page.next;
    } while (after !== undefined);
    return found;
  }

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
      const offset = query.cursor ? decodeCursor('offset', query.cursor) : 0;
      // One user past the page says whether another page follows (the offset cursor's wire format).
      const wanted = offset + query.limit + 1;
      const q = query.q?.trim().toLowerCase();
      const users = q ? await search(q, wanted) : (await userRecords.page({ limit: wanted })).items;
      const page = users.slice(offset, offset + query.limit);
      // Entries (skills, public machines: reads per agent) only for the page asked for.
      return { agents: await entries(page), next_cursor: users.length > offset + query.limit ? encodeCursor('offset', offset + query.limit) : null };
    },

    async get(uid) {
      const user = await userRecords.byUid(uid);
      if (!user) throw errors.notFound(`No agent "${uid}"`, { uid });
      return (await entries([user]))[0]!;
    },
  };
}
