/** Pure rules of a contract's transition log: the genesis link, row hashes and the runtime a row leaves behind. */
import { digestOf, sha256Hex } from '../../lib/hash.js';
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

export function initialState(definition: Definition): string {
  return Object.keys(definition.states).find((name) => definition.states[name]?.initial === true)!;
}

export function freshRuntime(record: ContractRecord): Runtime {
  return { state: initialState(record.definition), entered_tick: record.created_tick, fire_count: 0, watermarks: {}, n: 0, last: undefined };
}

export function runtimeAfter(row: TransitionRecord): Runtime {
  return { state: row.to_state, entered_tick: row.entered_tick, fire_count: row.fire_count, watermarks: row.watermarks, n: row.n, last: row };
}
