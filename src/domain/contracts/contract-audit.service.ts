import { canonicalJson } from '../../lib/canonical-json.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { digestOf } from '../../lib/hash.js';
import { contractGenesis, initialState, transitionHash } from './contract-runtime.js';
import { receiptInput } from './operator-run.js';
import type { ContractsCore } from './contracts-core.js';
import { type ContractRecord, type EventRecord, type TransitionRecord } from './contract.types.js';

const PAGE = 1000;

export interface EventView {
  id: string;
  name: string;
  contract_id: string;
  tick_number: number;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface OracleView {
  contract_id: string;
  name: string;
  oracle: Record<string, unknown>;
  latest: { value: unknown; tick_number: number } | null;
  series: Array<{ value: unknown; tick_number: number }>;
}

/** Transition history, its verification, the machine's event feed and oracle readings. */
export interface ContractAudit {
  history(
    record: ContractRecord,
    query: { since_tick?: number | undefined; success?: boolean | undefined; limit: number; cursor?: string | undefined },
  ): Promise<{ transitions: TransitionRecord[]; next_cursor: string | null }>;
  verify(
    record: ContractRecord,
  ): Promise<{ valid: boolean; broken_at: string | null; current_state: string; total_transitions: number; tick_number: number; reason: string | null }>;
  events(
    slug: string,
    query: { name?: string | undefined; since_tick?: number | undefined; limit: number },
  ): Promise<{ events: EventView[]; next_since_tick: number | null }>;
  oracles(slug: string, series: number): Promise<OracleView[]>;
}

export const eventView = (slug: string, row: EventRecord): EventView => ({
  id: `${slug}:${row.seq}`,
  name: row.name,
  contract_id: row.contract_id,
  tick_number: row.tick,
  payload: row.payload,
  created_at: row.created_at,
});

export function createContractAudit(core: ContractsCore): ContractAudit {
  const { contracts } = core;
  const { clock, contractEvents, nodeKeys } = core.deps;

  /** Every row of a contract, oldest first, a page at a time. */
  async function* allRows(record: ContractRecord): AsyncGenerator<TransitionRecord> {
    let after: number | undefined;
    for (;;) {
      const page = await contracts.transitions(record, { limit: PAGE, ...(after !== undefined ? { afterSeq: after } : {}) });
      yield* page;
      if (page.length < PAGE) return;
      after = page[page.length - 1]!.seq;
    }
  }

  /**
   * Why a row's receipt does not bind the row, or undefined when it does: the proof digest is the
   * receipt's, and the receipt's HMAC, input and output digests match the row's input and result.
   */
  async function receiptProblem(row: TransitionRecord): Promise<string | undefined> {
    if (!row.receipt) return row.proof_digest === null ? undefined : 'proof digest without a receipt';
    if (digestOf(row.receipt) !== row.proof_digest) return 'proof digest does not match the receipt';
    const { pre_actions: _pre, ...output } = (row.result ?? {}) as Record<string, unknown>;
    const input = receiptInput(row.operators, row.input);
    const { receipts } = core.deps;
    if (receipts?.verifyReceipt) {
      const verdict = await receipts.verifyReceipt(row.receipt as never, { input, output });
      return verdict.valid ? undefined : `receipt does not verify: ${verdict.reason}`;
    }
    const { hmac, ...body } = row.receipt;
    if (body.input_sha256 !== digestOf(input) || body.output_sha256 !== digestOf(output)) return 'receipt does not bind the row input and result';
    if (body.key_id === nodeKeys.receiptKeyId && hmac !== nodeKeys.hmac(canonicalJson(body))) return 'receipt HMAC does not verify';
    return undefined;
  }

  return {
    async history(record, query) {
      const wanted: TransitionRecord[] = [];
      let after = query.cursor === undefined ? undefined : decodeCursor('after', query.cursor);
      let more = false;
      // Without a success filter every row read is kept: read one page's worth and one more (to know
      // whether a next page exists), not PAGE rows. Reading PAGE rows for a page of 10 cost a parse of
      // 1,000 transition rows per request once a contract had fired 1,000 times (soak: ~12 min).
      const batch = query.success === undefined ? query.limit + 1 : PAGE;
      for (;;) {
        const page = await contracts.transitions(record, {
          limit: batch,
          ...(after !== undefined ? { afterSeq: after } : {}),
          ...(query.since_tick !== undefined ? { fromTick: query.since_tick } : {}),
        });
        for (const row of page) {
          if (query.success !== undefined && row.success !== query.success) continue;
          if (wanted.length === query.limit) {
            more = true;
            break;
          }
          wanted.push(row);
        }
        if (more || page.length < batch) break;
        after = page[page.length - 1]!.seq;
      }
      const last = wanted[wanted.length - 1];
      return { transitions: wanted, next_cursor: more && last ? encodeCursor('after', last.seq) : null };
    },

    async verify(record) {
      const runtime = await contracts.runtime(record);
      let expectedPrev = contractGenesis(record.id, record.created_tick);
      let state: string | undefined;
      let total = 0;
      const result = (broken_at: string | null, reason: string | null) => ({
        valid: broken_at === null,
        broken_at,
        current_state: runtime.state,
        total_transitions: total,
        tick_number: clock.tick(),
        reason,
      });
      for await (const row of allRows(record)) {
        if (row.prev_hash !== expectedPrev) return result(row.id, 'prev_hash does not link to the previous row');
        if (transitionHash(row) !== row.state_hash) return result(row.id, 'row content does not match its state_hash');
        const problem = await receiptProblem(row);
        if (problem) return result(row.id, problem);
        expectedPrev = row.state_hash;
        if (!row.success) continue;
        total++;
        if (state !== undefined && row.from_state !== state)
          return result(row.id, `starts in "${row.from_state}" but the previous transition ended in "${state}"`);
        state = row.to_state;
      }
      const final = state ?? initialState((await contracts.versions(record))[0]?.definition ?? record.definition);
      if (final !== runtime.state) return result('final_state_mismatch', `the transitions end in "${final}" but the contract is in "${runtime.state}"`);
      return result(null, null);
    },

    async events(slug, query) {
      const rows = await contractEvents.events(slug, {
        limit: query.limit + 1,
        ...(query.since_tick !== undefined ? { fromTick: query.since_tick + 1 } : {}),
        ...(query.name !== undefined ? { types: [query.name] } : {}),
      });
      let page = rows;
      if (rows.length > query.limit) {
        // A page ends on a whole tick, so since_tick = next_since_tick neither skips nor repeats events.
        const lastTick = rows[query.limit - 1]!.tick;
        page = rows.slice(0, query.limit);
        if (rows[query.limit]!.tick === lastTick) {
          const whole = page.filter((r) => r.tick < lastTick);
          page =
            whole.length > 0
              ? whole
              : await contractEvents.events(slug, {
                  fromTick: lastTick,
                  toTick: lastTick,
                  ...(query.name !== undefined ? { types: [query.name] } : {}),
                });
        }
      }
      const last = page[page.length - 1];
      return { events: page.map((r) => eventView(slug, r)), next_since_tick: last ? last.tick : null };
    },

    async oracles(slug, series) {
      const all = (await contracts.bySlug(slug)).filter((c) => typeof c.definition.oracle === 'object' && c.definition.oracle !== null);
      return Promise.all(
        all.map(async (record) => {
          const oracle = record.definition.oracle!;
          const field = typeof oracle.field === 'string' ? oracle.field : undefined;
          const recent = await contracts.recentTransitions(record, Math.max(series, 1) * 4 + 20);
          const readings = recent
            .filter((r) => r.success)
            .map((r) => ({ value: readingOf(r, field, record.definition.defaults ?? {}), tick_number: r.tick_number }))
            .filter((r) => r.value !== undefined)
            .reverse();
          return {
            contract_id: record.id,
            name: record.name,
            oracle,
            latest: readings[readings.length - 1] ?? null,
            series: series === 0 ? [] : readings.slice(-series),
          };
        }),
      );
    },
  };
}

/** A reading: `oracle.field` looked up in the fire's input (dotted path), else the operator output value. */
function readingOf(row: TransitionRecord, field: string | undefined, defaults: Record<string, unknown>): unknown {
  if (field === undefined) return (row.result as { value?: unknown } | null)?.value ?? undefined;
  let node: unknown = { ...defaults, ...row.input };
  for (const key of field.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
