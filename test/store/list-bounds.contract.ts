import { describe, expect, it } from 'vitest';
import { createDirectoryService } from '../../src/domain/agents/directory.service.js';
import { createChainService } from '../../src/domain/chain/chain.service.js';
import type { MachineRecord } from '../../src/domain/chain/machine.js';
import { createMachineRepository } from '../../src/domain/chain/machine-repository.js';
import { createMachinesService, type MachinesService } from '../../src/domain/chain/machines.service.js';
import { createPublicFeedService } from '../../src/domain/chain/public-feed.service.js';
import type { ProposalRecord } from '../../src/domain/community/community-policy.js';
import { createCommunityOperatorsService, type CommunityDeps } from '../../src/domain/community/community.service.js';
import { createProposalRepository } from '../../src/domain/community/proposal-repository.js';
import type { ContractPlanning } from '../../src/domain/contracts/contract-planning.service.js';
import { createContractRepository } from '../../src/domain/contracts/contract-repository.js';
import type { ContractRecord } from '../../src/domain/contracts/contract.types.js';
import type { ContractsCore } from '../../src/domain/contracts/contracts-core.js';
import { createPublicDirectory } from '../../src/domain/contracts/public-directory.service.js';
import type { Caller } from '../../src/domain/identity/caller.js';
import type { IdentityService } from '../../src/domain/identity/identity.service.js';
import { createUserRepository } from '../../src/domain/identity/user-repository.js';
import type { QuotasService } from '../../src/domain/quotas/quotas.service.js';
import { createFakeClock } from '../../src/lib/clock.js';
import { createEventBus } from '../../src/domain/events.js';
import type { Store } from '../../src/storage/port.js';
import { proposal } from './proposal-repository.contract.js';
import { countingReads } from './reads-counter.js';
import { freshStore, type MakeStore } from './store-harness.js';
import { storageOf } from '../helpers/repositories.js';

/** Records of each kind stored: a page of `LIMIT` that deep read `DEPTH` records before keyset cursors. */
const RECORDS = 180;
const LIMIT = 10;
const DEPTH = 100;

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();

const machine = (n: number): MachineRecord => {
  // Every third machine is bob's and private; alice owns one private machine of her own.
  const own = n === 40;
  const hidden = n % 3 === 2 || own;
  return {
    slug: `m${String(n).padStart(3, '0')}`,
    display_name: null,
    purpose: null,
    is_public: !hidden,
    status: 'active',
    owner_uid: own ? 'alice' : hidden ? 'bob' : 'carol',
    genesis_tick: n,
    genesis_hash: 'h',
    created_at: at(n),
    updated_at: at(n),
  };
};

const contract = (n: number): ContractRecord => ({
  id: `c${String(n).padStart(3, '0')}`,
  slug: machine(n % 6).slug,
  name: `contract ${n}`,
  template_id: null,
  status: 'active',
  definition: { name: 'c', states: { idle: { initial: true } }, transitions: [] },
  integrity_hash: 'h',
  current_version_no: 1,
  created_by: 'carol',
  created_at: at(n),
  updated_at: at(n),
  created_tick: n,
  anchor_tick: n,
  skip_floor: {},
});

// Pairs created in the same second: ties the listing breaks by id.
const numbered = (n: number): ProposalRecord => ({
  ...proposal(`p${String(n).padStart(3, '0')}`, 'staging'),
  operator_id: `OP_${n}`,
  name: `op ${n}`,
  created_at: at(Math.floor(n / 2)),
});

/** The five lists over `store`, each as a page function of (limit, cursor) returning ids and the next cursor. */
function lists(store: Store) {
  const clock = createFakeClock();
  const bus = createEventBus();
  const storage = storageOf(store, clock);
  const chain = createChainService({ ...storage, clock, bus });
  const machines = createMachinesService({ ...storage, clock, chain, identity: {} as IdentityService, quotas: {} as QuotasService });
  const feed = createPublicFeedService({ ...storage, clock, bus, machines: { view: async (m: MachineRecord) => m } as unknown as MachinesService });
  const directory = createDirectoryService(storage);
  const core = { contracts: storage.contractRecords, deps: { ...storage, clock }, nextFire: () => null } as unknown as ContractsCore;
  const contracts = createPublicDirectory(core, {} as ContractPlanning);
  const community = createCommunityOperatorsService({ ...storage, clock } as unknown as CommunityDeps);
  const alice: Caller = { uid: 'alice', credential: 'user-key' };
  type Page = (limit: number, cursor?: string) => Promise<{ ids: string[]; next_cursor: string | null }>;
  const page: Record<string, { collection: string; page: Page }> = {
    'public machines': {
      collection: 'machines',
      page: async (limit, cursor) => {
        const r = await feed.listPublic({ limit, cursor });
        return { ids: r.machines.map((m) => m.slug), next_cursor: r.next_cursor };
      },
    },
    "alice's machines": {
      collection: 'machines',
      page: async (limit, cursor) => {
        const r = await machines.list(alice, { limit, ...(cursor === undefined ? {} : { cursor }) });
        return { ids: r.machines.map((m) => m.slug), next_cursor: r.next_cursor };
      },
    },
    agents: {
      collection: 'users',
      page: async (limit, cursor) => {
        const r = await directory.list({ limit, ...(cursor === undefined ? {} : { cursor }) });
        return { ids: r.agents.map((a) => a.uid), next_cursor: r.next_cursor };
      },
    },
    'public contracts': {
      collection: 'contracts',
      page: async (limit, cursor) => {
        const r = await contracts.list({ limit, cursor });
        return { ids: r.contracts.map((c) => c.id), next_cursor: r.next_cursor };
      },
    },
    proposals: {
      collection: 'community-proposals',
      page: async (limit, cursor) => {
        const r = await community.list({ limit, cursor });
        return { ids: r.proposals.map((p) => p.id), next_cursor: r.next_cursor };
      },
    },
  };
  return page;
}

/** A deep page of every keyset list reads about a page of records, not every record before it: on every adapter. */
export function runListBoundsContract(name: string, makeStore: MakeStore): void {
  describe(`keyset lists: ${name}`, () => {
    it('reads about a page for a page deep in each list, and walks each list once in the order of one big page', async () => {
      const { store } = await freshStore(makeStore);
      const machineRecords = createMachineRepository(store);
      const users = createUserRepository(store);
      const contracts = createContractRepository(store);
      const proposals = createProposalRepository(store);
      for (let n = 0; n < RECORDS; n++) {
        await machineRecords.insert(machine(n));
        await users.insert({ uid: `u${String(n).padStart(3, '0')}`, created_at: at(n), created_tick: n });
        await contracts.insert(contract(n));
        await proposals.insert(numbered(n));
      }
      // One-time backfills (the feed's activity index, the proposals' order field) run here, outside the counted reads.
      await createPublicFeedService({ ...storageOf(store), clock: createFakeClock(), bus: createEventBus(), machines: {} as MachinesService }).fleet();
      await proposals.newestAfter({}, undefined, 1);
      const { store: counted, reads } = countingReads(store);
      for (const [list, { collection, page }] of Object.entries(lists(counted))) {
        const whole = await page(1000);
        const seen: string[] = [];
        let cursor: string | undefined;
        while (seen.length < DEPTH) {
          const next = await page(LIMIT, cursor);
          seen.push(...next.ids);
          cursor = next.next_cursor!;
        }
        reads.found[collection] = 0;
        const deep = await page(LIMIT, cursor);
        expect(deep.ids, list).toEqual(whole.ids.slice(seen.length, seen.length + LIMIT));
        // A page and one more, plus what the list leaves out on the way (a third of the machines and contracts are
        // private; proposals re-read the cursor's millisecond and read past the last one's), in store pages of 11 (12) and 22 (24).
        expect(reads.found[collection], list).toBeLessThanOrEqual(36);
        expect(seen, list).toEqual(whole.ids.slice(0, seen.length));
      }
      expect(reads.lists).toEqual({});
    });
  });
}
