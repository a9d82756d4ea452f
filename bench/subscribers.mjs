/**
 * The public subscribers page before and after the listener index, in process over a store of its own:
 * `node bench/subscribers.mjs [contracts] [--pg]` (after `npm run build`; `--pg` uses DATABASE_URL).
 * Stores N contracts on 50 public machines, each listening to one of 50 other machines (so the index
 * holds about N entries), plus 5 listeners of one emitting contract's machine (one on a private
 * machine, one killed). Times, in milliseconds: the page as it was computed before (every contract
 * read), the page now (`PublicDirectory.subscribers`), and the index read alone by equality (what the
 * page does) and by an ordered find (what it does not, see notes/subscribers.md); then the creation of
 * N contracts with and without the index, and the one-time backfill of N contracts stored without it.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dropSchema, percentile, tempDataDir } from './lib.mjs';

const dist = (p) => new URL(`../dist/src/${p}`, import.meta.url).href;
const { createContractRepository } = await import(dist('domain/contracts/contract-repository.js'));
const { createMachineRepository } = await import(dist('domain/chain/machine-repository.js'));
const { createPublicDirectory } = await import(dist('domain/contracts/public-directory.service.js'));
const { isEventTrigger, triggerEvents } = await import(dist('domain/contracts/triggers.js'));

const n = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 5000);
const onPg = process.argv.includes('--pg');
const RUNS = 20;

const on = (machine, event = 'beat') => ({ from: 's', to: 's', trigger: { kind: 'on_event', event, machine } });
const contract = (id, slug, transitions, status = 'active') => ({
  id,
  slug,
  name: id,
  template_id: null,
  status,
  definition: { name: id, states: { s: { initial: true } }, transitions },
  integrity_hash: 'h',
  current_version_no: 1,
  created_by: 'u',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  created_tick: 10,
  anchor_tick: 10,
  skip_floor: {},
});
const machine = (slug, is_public = true) => ({ slug, is_public, status: 'active', owner_uid: 'u', genesis_tick: 0, created_at: 't', updated_at: 't' });

/** The page's computation before the index: the removed code of `subscribers`, line for line. */
async function before(contracts, machines, id) {
  const record = await contracts.get(id);
  const emits = new Set(record.definition.transitions.flatMap((t) => (t.post_actions ?? []).flatMap((a) => (a.type === 'emit' && a.event ? [a.event] : []))));
  const live = await contracts.list((c) => c.slug !== record.slug && c.status !== 'killed' && c.status !== 'frozen');
  const slugs = await machines.publicAmong(live.map((c) => c.slug));
  const out = [];
  for (const c of live.filter((l) => slugs.has(l.slug))) {
    const events = new Set();
    for (const t of c.definition.transitions) {
      if (!isEventTrigger(t.trigger) || t.trigger.machine !== record.slug) continue;
      for (const name of triggerEvents(t.trigger)) if (emits.has(name)) events.add(name);
    }
    if (events.size > 0) out.push({ slug: c.slug, contract_id: c.id, events: [...events].sort(), since_tick: c.created_tick });
  }
  return out;
}

async function time(fn) {
  await fn();
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return { p50: +percentile(ms, 50).toFixed(2), p99: +percentile(ms, 99).toFixed(2) };
}

async function withStore(fn) {
  if (onPg) {
    const { createPostgresStore } = await import(dist('storage/postgres/postgres.store.js'));
    const url = process.env.DATABASE_URL;
    const schema = `bench_subs_${randomBytes(4).toString('hex')}`;
    const store = createPostgresStore({ connectionString: url, schema });
    await store.open();
    try {
      return await fn(store);
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  }
  const { createLowdbStore } = await import(dist('storage/lowdb/lowdb.store.js'));
  const dir = tempDataDir();
  const store = createLowdbStore({ dataDir: dir, fsync: false });
  await store.open();
  try {
    return await fn(store);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Stores the bench's contracts through `insert`; returns the emitting contract's id. */
async function fill(store, insert) {
  const machines = createMachineRepository(store);
  for (let m = 0; m < 50; m++) await machines.insert(machine(`m${m}`));
  await machines.insert(machine('src'));
  await machines.insert(machine('hidden', false));
  await insert(
    contract('emitter', 'src', [{ from: 's', to: 's', trigger: { kind: 'every', every_ticks: 1 }, post_actions: [{ type: 'emit', event: 'beat' }] }]),
  );
  const special = new Map([
    [Math.floor(n * 0.1), contract('sub-1', 'm1', [on('src')])],
    [Math.floor(n * 0.3), contract('sub-hidden', 'hidden', [on('src')])],
    [Math.floor(n * 0.5), contract('sub-killed', 'm2', [on('src')], 'killed')],
    [Math.floor(n * 0.7), contract('sub-2', 'm3', [on('src'), on('m4')])],
    [Math.floor(n * 0.9), contract('sub-3', 'm4', [on('src')])],
  ]);
  const batch = [];
  for (let i = 0; i < n; i++) {
    batch.push(insert(special.get(i) ?? contract(`c${i}`, `m${i % 50}`, [on(`n${i % 50}`)])));
    if (batch.length === 50) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  return 'emitter';
}

const rows = {};
await withStore(async (store) => {
  const contracts = createContractRepository(store);
  const t = performance.now();
  const id = await fill(store, (r) => contracts.insert(r));
  rows.create_with_index_ms = Math.round(performance.now() - t);
  const machines = createMachineRepository(store);
  const directory = createPublicDirectory({ contracts, deps: { store, clock: { tick: () => 0 } } }, {});
  const expected = await before(contracts, machines, id);
  const now = await directory.subscribers(id);
  if (JSON.stringify(now) !== JSON.stringify(expected)) throw new Error(`differ: ${JSON.stringify({ now, expected })}`);
  rows.subscribers = now.map((s) => s.contract_id).join(',');
  rows.page_before = await time(() => before(contracts, machines, id));
  rows.page_after = await time(() => directory.subscribers(id));
  rows.index_equality = await time(() => store.docs.find('contract-listeners', { slug: 'src' }));
  rows.index_ordered = await time(() => store.docs.find('contract-listeners', { slug: 'src' }, { orderBy: { field: 'ordinal' } }));
});
await withStore(async (store) => {
  let t = performance.now();
  await fill(store, (r) => store.docs.insert('contracts', r.id, r));
  rows.create_without_index_ms = Math.round(performance.now() - t);
  t = performance.now();
  await createContractRepository(store).listenersReady();
  rows.backfill_ms = Math.round(performance.now() - t);
});
console.log(JSON.stringify({ backend: onPg ? 'postgres' : 'lowdb', contracts: n, ...rows }, null, 1));
