/** Pure rules of a contract's transition log: the genesis link, row hashes and the runtime a row leaves behind. */
import { digestOf, sha256Hex } from '../../lib/hash.js';
import type { RowInput } from '../../storage/port.js';
import type { ContractRecord, Definition, Runtime, TransitionRecord } from './contract.types.js';

/** The `prev_hash` of a contract's first transition row. */
export function contractGenesis(id: string, createdTick: number): string {
  return sha256Hex(`core-contract|${id}|${createdTick}`);
}

/** `state_hash` of a transition row: SHA-256 of its canonical JSON without `seq` and `state_hash`. */
export function transitionHash(row: Record<string, unknown>): string {
  const { seq: _seq, state_hash: _hash, ...rest } = row;
  return digestOf(rest);
}

/**
 * A transition row as stored: without the fields the row's own `type`, `tick` and `n` say again (the
 * contract id, the tick and the row id), about 100 of its 1,470 bytes. `wholeTransition` puts them back on every
 * read, so the row, its hash and everything shown are as before; rows stored with them read unchanged.
 */
export function storedTransition(row: RowInput<TransitionRecord>): RowInput<TransitionRecord> {
  const { contract_id: _contract, tick_number: _tick, id: _id, ...rest } = row;
  return rest as RowInput<TransitionRecord>;
}

export function wholeTransition(row: TransitionRecord): TransitionRecord {
  if (row.contract_id !== undefined) return row;
  return { ...row, id: `${row.type}:${row.n}`, contract_id: row.type, tick_number: row.tick };
}

export function initialState(definition: Definition): string {
  return Object.keys(definition.states).find((name) => definition.states[name]?.initial === true)!;
}

export function freshRuntime(record: ContractRecord): Runtime {
  return { state: initialState(record.definition), entered_tick: record.created_tick, fire_count: 0, watermarks: {}, n: 0, last: undefined };
}

export function runtimeAfter(row: TransitionRecord): Runtime {
  return { state: row.to_state, entered_tick: row.entered_tick, fire_count: row.fire_count, watermarks: row.watermarks, n: row.n, last: row };
}
