import { randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { digestOf } from '../../lib/hash.js';
import type { Caller } from '../identity/caller.js';
import {
  ANCHOR_ID_SECRET,
  anchorIdHash,
  legacyAnchorIdHash,
  DEFAULT_ANCHOR_EVERY_TICKS,
  newAnchorKey,
  signAnchor,
  verifyAnchor,
  type AnchorClaim,
  type AnchorConfigRecord,
  type AnchorKeyRecord,
  type AnchorView,
} from './anchor.js';
import type { ChainService, WriteResult } from './chain.service.js';
import type { MachineRecord } from './machine.js';
import { type AnchorRow, type AnchorRepository } from './anchor-repository.js';
import type { MachinesService } from './machines.service.js';
import { storedSecret } from '../identity/stored-secret.js';
import type { NodeKeyRepository } from '../identity/node-key-repository.js';
import type { ChainLogRepository } from './chain-log-repository.js';
import type { MachineRepository } from './machine-repository.js';

/** How often due anchors are looked for. */
const POLL_MS = 5_000;

export type ConfigView = Omit<AnchorConfigRecord, 'last_sent_seq'> & { public_key: string | null; id_hash: string | null };

export interface AnchorsService {
  /** Records a signed child head in the mother's chain (and an `anchor.sent` row in the child's). */
  anchor(motherSlug: string, claim: Omit<AnchorClaim, 'mother_slug'> & { key_id: string; signature: string }): Promise<WriteResult & { anchor_id: string }>;
  list(
    motherSlug: string,
    caller: Caller,
    q: { id_hash?: string | undefined; limit: number; cursor?: string | undefined },
  ): Promise<{ anchors: AnchorView[]; next_cursor: string | null }>;
  anchored(
    motherSlug: string,
    caller: Caller,
  ): Promise<Array<{ id_hash: string; anchor_count: number; first_tick: number; last_tick: number; last_head_seq: number }>>;
  getConfig(slug: string): Promise<ConfigView>;
  setConfig(slug: string, input: { enabled: boolean; mother_slug: string; every_ticks: number }, caller: Caller): Promise<ConfigView>;
  rotateKey(slug: string, caller: Caller): Promise<{ key_id: string; public_key: string; previous_key_id: string | null; rotated_tick: number }>;
  /** A verdict like every verify operation's: `valid`, and `reason` naming the first check that failed. */
  verify(
    q: { slug?: string | undefined; genesis_hash?: string | undefined; id_hash?: string | undefined },
    caller: Caller,
  ): Promise<{
    valid: boolean;
    reason: string | null;
    id_hash: string;
    recomputed: boolean;
    match: boolean | null;
    anchored: boolean;
    anchors: Array<AnchorView & { mother_slug: string; head_matches: boolean | null }>;
  }>;
  /** Anchors every enabled machine whose cadence is due; returns how many anchors were written. */
  runDue(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export function createAnchorsService(deps: {
  chainLog: ChainLogRepository;
  machineRecords: MachineRepository;
  anchorRecords: AnchorRepository;
  nodeKeyRecords: NodeKeyRepository;
  clock: Clock;
  chain: ChainService;
  machines: MachinesService;
}): AnchorsService {
  const { chainLog, machineRecords, anchorRecords, clock, chain, machines } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  const machineDoc = (slug: string) => machineRecords.get(slug);
  const emptyConfig = (slug: string): AnchorConfigRecord => ({
    slug,
    enabled: false,
    mother_slug: null,
    every_ticks: DEFAULT_ANCHOR_EVERY_TICKS,
    key_id: null,
    last_anchor_tick: null,
    last_anchor_seq: null,
    last_sent_seq: null,
    last_error: null,
  });
  const configOf = async (slug: string) => (await anchorRecords.config(slug)) ?? emptyConfig(slug);

  async function view(config: AnchorConfigRecord): Promise<ConfigView> {
    const { last_sent_seq: _internal, ...rest } = config;
    const key = config.key_id ? await anchorRecords.key(config.key_id) : undefined;
    return { ...rest, public_key: key?.public_key ?? null, id_hash: key?.id_hash ?? null };
  }

  let secret: Promise<Buffer> | undefined;
  /** The machine's pseudonym under the node's anchor secret (made once, kept in the store). */
  async function pseudonymOf(slug: string, genesisHash: string): Promise<string> {
    if (secret === undefined) {
      secret = storedSecret(deps.nodeKeyRecords, ANCHOR_ID_SECRET, clock.now);
      // A failed read is not kept: the next call tries again.
      secret.catch(() => (secret = undefined));
    }
    return anchorIdHash(await secret, slug, genesisHash);
  }

  /**
   * The machine's current anchor key, created on first use. A key made before pseudonyms were keyed
   * is retired and replaced (an `anchor.key.rotated` row says so): its anchors stay verifiable, and
   * the new ones can no longer be matched to a guessed slug.
   */
  async function currentKey(machine: MachineRecord): Promise<AnchorKeyRecord> {
    const config = await configOf(machine.slug);
    const existing = config.key_id ? await anchorRecords.key(config.key_id) : undefined;
    const idHash = await pseudonymOf(machine.slug, machine.genesis_hash);
    if (existing && existing.retired_tick === null && existing.id_hash === idHash) return existing;
    const tick = clock.tick();
    const upgraded = existing !== undefined && existing.retired_tick === null;
    if (upgraded) await anchorRecords.retireKey(existing.key_id, tick);
    const key = newAnchorKey(machine.slug, idHash, tick);
    await anchorRecords.insertKey(key);
    await anchorRecords.updateConfig(machine.slug, (c) => ({ ...(c ?? emptyConfig(machine.slug)), key_id: key.key_id }));
    if (upgraded) {
      const payload = { key_id: key.key_id, previous_key_id: existing.key_id, reason: 'keyed pseudonym' };
      await chain.append(machine, { type: 'anchor.key.rotated', actor_uid: null, payload_digest: digestOf(payload) });
    }
    return key;
  }

  const service: AnchorsService = {
    async anchor(motherSlug, claim) {
      const mother = await machineDoc(motherSlug);
      if (!mother || !mother.is_public) throw errors.notFound(`No public machine "${motherSlug}" to anchor into`, { slug: motherSlug });
      const key = await anchorRecords.key(claim.key_id);
      if (!key || key.id_hash !== claim.id_hash.toLowerCase() || key.retired_tick !== null) {
        throw errors.forbidden(`Key "${claim.key_id}" is not the current anchor key of machine ${claim.id_hash}; rotate or use the current key`);
      }
      const full: AnchorClaim = { ...claim, mother_slug: motherSlug, id_hash: key.id_hash, head_hash: claim.head_hash.toLowerCase() };
      if (!verifyAnchor(key.public_key, full, claim.signature)) {
        throw errors.forbidden(
          'The anchor signature does not verify: sign "anchor|<motherSlug>|<id_hash>|<head_seq>|<head_tick>|<head_hash>" with the anchor key',
        );
      }
      const child = await machineDoc(key.slug);
      if (!child) throw errors.notFound(`No machine ${key.id_hash}`);
      if (child.slug === motherSlug) throw errors.unprocessable('A machine cannot anchor into itself; choose another mother');
      const row = await chainLog.row(child.slug, full.head_seq);
      if (!row || row.state_hash !== full.head_hash || row.tick !== full.head_tick) {
        throw errors.unprocessable(`seq ${full.head_seq} of machine ${key.id_hash} does not have that hash and tick: anchor an existing head`);
      }
      const previous = await anchorRecords.anchored(motherSlug, full.id_hash);
      // Also refuses a replayed request: each anchor must move the anchored head forward.
      if (previous && previous.last.head_seq >= full.head_seq) {
        throw errors.conflict(`seq ${previous.last.head_seq} of machine ${full.id_hash} is already anchored in "${motherSlug}"; anchor a newer head`);
      }
      chain.assertWritable(mother);
      chain.assertWritable(child);
      const anchorId = randomUUID();
      const record = { id_hash: full.id_hash, head_seq: full.head_seq, head_tick: full.head_tick, head_hash: full.head_hash, key_id: key.key_id };
      const motherRow = await chain.append(mother, {
        type: 'anchor.recorded',
        actor_uid: null,
        payload_digest: digestOf(record),
        payload: record,
        transition_id: anchorId,
      });
      const anchorView: AnchorView = {
        anchor_id: anchorId,
        id_hash: full.id_hash,
        head_seq: full.head_seq,
        head_tick: full.head_tick,
        head_hash: full.head_hash,
        anchored_tick: motherRow.tick,
        mother_seq: motherRow.seq,
      };
      // The row type carries the id hash so one child's anchors are read through the log's type index.
      await anchorRecords.appendAnchor(motherSlug, { ...anchorView, tick: motherRow.tick, type: `anchor:${full.id_hash}` });
      await anchorRecords.updateAnchored(motherSlug, full.id_hash, (cur) => ({
        mother_slug: motherSlug,
        id_hash: full.id_hash,
        anchor_count: (cur?.anchor_count ?? 0) + 1,
        first_tick: cur?.first_tick ?? motherRow.tick,
        last_tick: motherRow.tick,
        last: anchorView,
      }));
      const sentPayload = { mother_slug: motherSlug, anchor_id: anchorId, mother_seq: motherRow.seq, mother_state_hash: motherRow.state_hash, ...record };
      const sent = await chain.append(child, {
        type: 'anchor.sent',
        actor_uid: null,
        payload_digest: digestOf(sentPayload),
        payload: sentPayload,
        transition_id: anchorId,
      });
      await anchorRecords.updateConfig(child.slug, (c) => ({
        ...(c ?? emptyConfig(child.slug)),
        last_anchor_tick: motherRow.tick,
        last_anchor_seq: full.head_seq,
        last_sent_seq: sent.seq,
        last_error: null,
      }));
      return { ok: true, anchor_id: anchorId, tick: motherRow.tick, transition_id: anchorId, seq: motherRow.seq, state_hash: motherRow.state_hash };
    },

    async list(motherSlug, caller, q) {
      await machines.readable(motherSlug, caller);
      const before = q.cursor === undefined ? undefined : decodeCursor('before', q.cursor);
      const rows = await anchorRecords.readAnchors(motherSlug, {
        reverse: true,
        limit: q.limit + 1,
        ...(before !== undefined ? { toSeq: before - 1 } : {}),
        ...(q.id_hash ? { types: [`anchor:${q.id_hash.toLowerCase()}`] } : {}),
      });
      const page = rows.slice(0, q.limit);
      const next = rows.length > q.limit && page.length > 0 ? encodeCursor('before', page[page.length - 1]!.seq) : null;
      return { anchors: page.map(anchorViewOf), next_cursor: next };
    },

    async anchored(motherSlug, caller) {
      await machines.readable(motherSlug, caller);
      const records = await anchorRecords.anchoredIn(motherSlug);
      return records
        .sort((a, b) => b.last_tick - a.last_tick)
        .map((r) => ({ id_hash: r.id_hash, anchor_count: r.anchor_count, first_tick: r.first_tick, last_tick: r.last_tick, last_head_seq: r.last.head_seq }));
    },

    getConfig: async (slug) => view(await configOf(slug)),

    async setConfig(slug, input, caller) {
      if (input.mother_slug === slug)
        throw errors.validation('mother_slug must name another machine than slug', {
          issues: [{ path: 'mother_slug', message: 'same as slug', code: 'custom' }],
        });
      const { machine } = await machines.readable(slug, caller);
      const { machine: mother } = await machines.readable(input.mother_slug, caller);
      if (!mother.is_public) throw errors.unprocessable(`The mother "${mother.slug}" is private; anchors go into a public machine`);
      await currentKey(machine);
      const config = await anchorRecords.updateConfig(slug, (c) => ({
        ...(c ?? emptyConfig(slug)),
        enabled: input.enabled,
        mother_slug: mother.slug,
        every_ticks: input.every_ticks,
      }));
      await chain.append(machine, { type: 'anchor.config.set', actor_uid: caller.uid, payload_digest: digestOf(input), payload: { ...input } });
      // Enabling anchors at once, so the first anchor does not wait a whole period.
      if (input.enabled) await anchorNow(slug).catch((err: unknown) => recordError(slug, err));
      return view((await anchorRecords.config(slug)) ?? config!);
    },

    async rotateKey(slug, caller) {
      const { machine } = await machines.readable(slug, caller);
      const config = await configOf(slug);
      const tick = clock.tick();
      if (config.key_id) await anchorRecords.retireKey(config.key_id, tick);
      const key = await currentKey(machine);
      await chain.append(machine, {
        type: 'anchor.key.rotated',
        actor_uid: caller.uid,
        payload_digest: digestOf({ key_id: key.key_id, previous_key_id: config.key_id }),
      });
      return { key_id: key.key_id, public_key: key.public_key, previous_key_id: config.key_id, rotated_tick: tick };
    },

    async verify(q, caller) {
      let child: MachineRecord | undefined;
      if (q.slug !== undefined)
        child = await machines.readable(q.slug, caller).then(
          (r) => r.machine,
          () => undefined,
        );
      const genesis = q.genesis_hash ?? (q.slug !== undefined ? child?.genesis_hash : undefined);
      if (!(q.slug !== undefined && genesis !== undefined) && q.id_hash === undefined) {
        throw errors.validation('Give slug with genesis_hash, or id_hash', {
          issues: [{ path: 'genesis_hash', message: 'required with slug', code: 'custom' }],
        });
      }
      // Recomputing a pseudonym is for the machine's readers: for anyone else it would be a guessing oracle.
      if (q.slug !== undefined && child === undefined && q.id_hash === undefined) {
        throw errors.notFound(`No machine "${q.slug}" you can read; without access, verify by the id_hash its owner gives you`, { slug: q.slug });
      }
      const recomputed =
        child !== undefined && genesis !== undefined ? [await pseudonymOf(child.slug, genesis), legacyAnchorIdHash(child.slug, genesis)] : undefined;
      const given = q.id_hash?.toLowerCase();
      const idHash = recomputed?.[0] ?? given!;
      let match: boolean | null = null;
      if (recomputed !== undefined && given !== undefined) match = recomputed.includes(given);
      else if (child !== undefined && q.genesis_hash !== undefined) match = child.genesis_hash === q.genesis_hash.toLowerCase();
      const own = child === undefined ? [] : [await pseudonymOf(child.slug, child.genesis_hash), legacyAnchorIdHash(child.slug, child.genesis_hash)];
      const wanted = new Set(recomputed ?? [idHash]);
      const found = [];
      for (const rec of await anchorRecords.anchoredOf(wanted)) {
        const readable = await machines.readable(rec.mother_slug, caller).then(
          () => true,
          () => false,
        );
        if (!readable) continue;
        const mine = child !== undefined && own.includes(rec.id_hash) ? child : undefined;
        const row = mine ? await chainLog.row(mine.slug, rec.last.head_seq) : undefined;
        found.push({ ...rec.last, mother_slug: rec.mother_slug, head_matches: mine ? row?.state_hash === rec.last.head_hash : null });
      }
      const anchored = found.length > 0;
      const cut = found.find((a) => a.head_matches === false);
      // The same verdict fields as every verify operation: valid, and the first check that failed.
      const reason =
        match === false
          ? q.id_hash !== undefined && recomputed !== undefined
            ? 'id_hash is not the hash of slug and genesis_hash'
            : `genesis_hash is not the genesis hash of machine "${q.slug}"`
          : !anchored
            ? 'no anchor of this machine is recorded in a machine you can read'
            : cut
              ? `the machine's chain no longer holds the head anchored in "${cut.mother_slug}" (seq ${cut.head_seq}): its tail was cut or rewritten`
              : null;
      return { valid: reason === null, reason, id_hash: idHash, recomputed: recomputed !== undefined, match, anchored, anchors: found };
    },

    async runDue() {
      const now = clock.tick();
      const due = (await anchorRecords.enabledConfigs()).filter(
        (c) => c.mother_slug !== null && (c.last_anchor_tick === null || now - c.last_anchor_tick >= c.every_ticks),
      );
      let written = 0;
      for (const c of due) {
        const done = await anchorNow(c.slug).catch((err: unknown) => recordError(c.slug, err));
        if (done) written += 1;
      }
      return written;
    },

    start() {
      if (timer !== undefined) return;
      const arm = () => {
        timer = setTimeout(() => {
          running = service
            .runDue()
            .catch(() => 0)
            .finally(() => {
              running = undefined;
              if (timer !== undefined) arm();
            });
        }, POLL_MS);
        timer.unref();
      };
      arm();
    },

    async stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };

  /** Signs the child's head with its anchor key and anchors it, unless nothing new was written since the last anchor. */
  async function anchorNow(slug: string): Promise<boolean> {
    const config = await configOf(slug);
    const child = await machineDoc(slug);
    if (!child || !config.mother_slug) return false;
    // The key first: replacing a key made before pseudonyms were keyed appends a row, which is then anchored.
    const key = await currentKey(child);
    const head = await chain.head(slug);
    if (!head || head.seq === config.last_anchor_seq || head.seq === config.last_sent_seq) return false;
    const claim: AnchorClaim = { mother_slug: config.mother_slug, id_hash: key.id_hash, head_seq: head.seq, head_tick: head.tick, head_hash: head.state_hash };
    const { mother_slug, ...rest } = claim;
    await service.anchor(mother_slug, { ...rest, key_id: key.key_id, signature: signAnchor(key, claim) });
    return true;
  }

  async function recordError(slug: string, err: unknown): Promise<false> {
    const message = err instanceof Error ? err.message : String(err);
    await anchorRecords.updateConfig(slug, (c) => (c ? { ...c, last_error: message } : undefined));
    return false;
  }

  return service;
}

function anchorViewOf(r: AnchorRow): AnchorView {
  const { anchor_id, id_hash, head_seq, head_tick, head_hash, anchored_tick, mother_seq } = r;
  return { anchor_id, id_hash, head_seq, head_tick, head_hash, anchored_tick, mother_seq };
}
