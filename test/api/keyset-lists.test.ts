import { beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/lib/clock.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { kineticProposal } from '../fixtures/community-operator.js';

const clock = createFakeClock();
const server = useServer({}, clock);

/** Alice owns one private machine among other users' private ones, created interleaved with public ones. */
let alice: { key: string; uid: string };
const privateOfOthers: string[] = [];

const definition = {
  name: 'keyset',
  states: { running: { initial: true }, stopped: { terminal: true } },
  transitions: [{ from: 'running', to: 'stopped', operator: 'KO42', condition: 'input.stop == true' }],
};

beforeAll(async () => {
  alice = await mintKey(server);
  const bob = await mintKey(server);
  const carol = await mintKey(server);
  const machine = async (owner: { key: string }, slug: string, isPublic: boolean) => {
    await createMachine(server, owner.key, { slug, isPublic });
    if (!isPublic && owner !== alice) privateOfOthers.push(slug);
  };
  for (let n = 0; n < 4; n++) {
    await machine(bob, `ks-bob-secret-${n}`, false);
    await machine(n % 2 === 0 ? bob : carol, `ks-pub-${n}`, true);
    await machine(carol, `ks-carol-secret-${n}`, false);
    if (n === 1) await machine(alice, 'ks-alice-own', false);
  }
  for (const [slug, owner] of [
    ['ks-pub-0', bob],
    ['ks-bob-secret-0', bob],
    ['ks-pub-1', carol],
  ] as const) {
    for (let n = 0; n < 3; n++) {
      const res = await server.call('POST', `/api/chain/${slug}/contracts`, { key: owner.key, body: { definition: { ...definition, name: `keyset ${n}` } } });
      expect(res.status).toBe(200);
    }
  }
  // Proposed at one frozen instant: the listing orders them by id, which the store's order does not know.
  for (let n = 0; n < 5; n++)
    expect((await server.call('POST', '/api/community-operators/propose', { key: alice.key, body: kineticProposal(`KS_OP${n}`) })).status).toBe(200);
}, 120_000);

interface List {
  name: string;
  path: string;
  items: string;
  id: (item: Record<string, unknown>) => string;
  key?: () => string;
}

const LISTS: List[] = [
  { name: 'public machines', path: '/api/chain/aggregate/list?', items: 'machines', id: (m) => m.slug as string },
  { name: 'machines of a caller', path: '/api/chain/state-machines?', items: 'machines', id: (m) => m.slug as string, key: () => alice.key },
  { name: 'agent directory', path: '/api/agents?', items: 'agents', id: (a) => a.uid as string },
  { name: 'agent directory search', path: '/api/agents?q=u&', items: 'agents', id: (a) => a.uid as string },
  { name: 'public contracts', path: '/api/contracts/public?', items: 'contracts', id: (c) => c.id as string },
  { name: 'public contracts of a machine', path: '/api/contracts/public?slug=ks-pub-0&', items: 'contracts', id: (c) => c.id as string },
  { name: 'community proposals', path: '/api/community-operators?', items: 'proposals', id: (p) => p.id as string },
  { name: 'community proposal search', path: '/api/community-operators?q=ks_op&', items: 'proposals', id: (p) => p.id as string },
];

const get = (list: List, query: string) => server.call('GET', `${list.path}${query}`, list.key ? { key: list.key() } : {});

/** Every page of `limit`, following next_cursor: the ids in order and the cursors handed out. */
async function walk(list: List, limit: number): Promise<{ ids: string[]; cursors: string[] }> {
  const ids: string[] = [];
  const cursors: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await get(list, `limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
    expect(page.status).toBe(200);
    ids.push(...(page.body[list.items] as Array<Record<string, unknown>>).map(list.id));
    cursor = page.body.next_cursor as string | null;
    if (cursor !== null) cursors.push(cursor);
  } while (cursor !== null);
  return { ids, cursors };
}

describe('keyset cursors on the store-backed lists', () => {
  it.each(LISTS)('$name: every page in turn shows each item once, in the order of one big page', async (list) => {
    const all = await get(list, 'limit=200');
    expect(all.body.next_cursor).toBeNull();
    const expected = (all.body[list.items] as Array<Record<string, unknown>>).map(list.id);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    for (const limit of [1, 2]) {
      const { ids, cursors } = await walk(list, limit);
      expect(ids).toEqual(expected);
      expect(cursors).toHaveLength(Math.ceil(expected.length / limit) - 1);
      for (const cursor of cursors) expect(cursor.length).toBeLessThanOrEqual(512);
    }
  });

  it.each(LISTS)('$name: refuses a forged offset cursor, garbage and a cursor of another list with a clear 400', async (list) => {
    const other = LISTS.find((l) => l.items !== list.items)!;
    const foreign = (await get(other, 'limit=1')).body.next_cursor as string;
    for (const cursor of [Buffer.from('offset:10000000').toString('base64url'), Buffer.from('offset:1').toString('base64url'), 'zzz', '!!', foreign]) {
      const res = await get(list, `limit=1&cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/Invalid cursor: pass the next_cursor of a previous page unchanged/);
    }
  });

  it("never names another user's private machine in a cursor of a list that skipped it", async () => {
    const list = LISTS[1]!;
    const { ids, cursors } = await walk(list, 1);
    expect(ids).toContain('ks-alice-own');
    expect(ids.some((slug) => privateOfOthers.includes(slug))).toBe(false);
    expect(privateOfOthers).toHaveLength(8);
    const decoded = cursors.map((c) => Buffer.from(c, 'base64url').toString());
    for (const text of decoded) for (const slug of privateOfOthers) expect(text).not.toContain(slug);
  });
});
