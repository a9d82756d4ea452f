import { errors } from '../../errors.js';
import { keysetPage } from '../../lib/keyset-page.js';
import { type UserRecord, type UserRepository } from '../identity/user-repository.js';
import type { SkillRepository } from './skill-repository.js';
import type { StateRepository } from './state-repository.js';
import type { MachineRepository } from '../chain/machine-repository.js';

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
export function createDirectoryService(deps: {
  skillRecords: SkillRepository;
  stateRecords: StateRepository;
  machineRecords: MachineRepository;
  users: UserRepository;
}): DirectoryService {
  const { skillRecords, stateRecords, machineRecords } = deps;

  /**
   * Which of `users` match `q` (absent: all): their uid or display name contains it. No index answers
   * a substring, so a search scans the users a page at a time from the cursor on (see `keysetPage`),
   * and stops as soon as its page and one more match: it reads about as many users as its page needs,
   * all those after the cursor only when fewer match.
   */
  async function matching(users: UserRecord[], q: string | undefined): Promise<Array<UserRecord | undefined>> {
    if (!q) return users;
    const names = new Map((await stateRecords.profilesOf(users.map((u) => u.uid))).map((p) => [p.uid, p.display_name ?? '']));
    return users.map((user) => (user.uid.toLowerCase().includes(q) || (names.get(user.uid) ?? '').toLowerCase().includes(q) ? user : undefined));
  }

  async function entries(users: UserRecord[]): Promise<AgentEntry[]> {
    const [profiles, skills, publicMachines] = await Promise.all([
      stateRecords.profilesOf(users.map((u) => u.uid)),
      skillRecords.attachedTo(users.map((u) => u.uid)),
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
      const q = query.q?.trim().toLowerCase();
      const { items, next_cursor } = await keysetPage({
        kind: 'agents',
        cursor: query.cursor || undefined,
        limit: query.limit,
        fetch: (after, size) => deps.users.page({ limit: size, positions: true, ...(after === undefined ? {} : { after }) }),
        keep: (users) => matching(users, q),
      });
      // Entries (skills, public machines: reads per agent) only for the page asked for.
      return { agents: await entries(items), next_cursor };
    },

    async get(uid) {
      const user = await deps.users.byUid(uid);
      if (!user) throw errors.notFound(`No agent "${uid}"`, { uid });
      return (await entries([user]))[0]!;
    },
  };
}
