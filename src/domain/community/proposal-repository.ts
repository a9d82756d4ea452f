import type { Store } from '../../storage/port.js';
import type { OperatorDef } from '../operators/operator.types.js';
import type { ProposalRecord, ProposalStatus } from './community-policy.js';

const PROPOSALS = 'community-proposals';
/** Promoted operators, registered into the operator registry at every start. */
const PROMOTED_OPERATORS = 'community-operators';

/** Community operator proposals and the operators promoted from them: the only module that names their collections. */
export interface ProposalRepository {
  byId(id: string): Promise<ProposalRecord | undefined>;
  /** Fails with `DuplicateKeyError` when the id exists. */
  insert(record: ProposalRecord): Promise<void>;
  /** Read-modify-write; `fn` sees undefined when the proposal is missing. Returns what is stored afterwards. */
  update(id: string, fn: (current: ProposalRecord | undefined) => ProposalRecord | undefined): Promise<ProposalRecord | undefined>;
  /**
   * The proposals of one status, or every proposal, in insertion order. Without a status this reads
   * the whole collection: proposals are written by people one at a time and the listing searches their
   * text, which no field index answers.
   */
  list(status?: ProposalStatus): Promise<ProposalRecord[]>;
  promoted(operatorId: string): Promise<OperatorDef | undefined>;
  /** Every promoted operator: read once at start to register them (bounded by the registry). */
  allPromoted(): Promise<OperatorDef[]>;
  /** Fails with `DuplicateKeyError` when the operator was promoted already. */
  insertPromoted(def: OperatorDef): Promise<void>;
}

export function createProposalRepository(store: Store): ProposalRepository {
  return {
    byId: (id) => store.docs.get<ProposalRecord>(PROPOSALS, id),
    insert: (record) => store.docs.insert(PROPOSALS, record.id, record),
    update: (id, fn) => store.docs.update<ProposalRecord>(PROPOSALS, id, fn),
    list: async (status) =>
      status === undefined ? store.docs.list<ProposalRecord>(PROPOSALS) : (await store.docs.find<ProposalRecord>(PROPOSALS, { status })).items,
    promoted: (operatorId) => store.docs.get<OperatorDef>(PROMOTED_OPERATORS, operatorId),
    allPromoted: () => store.docs.list<OperatorDef>(PROMOTED_OPERATORS),
    insertPromoted: (def) => store.docs.insert(PROMOTED_OPERATORS, def.id, def),
  };
}
