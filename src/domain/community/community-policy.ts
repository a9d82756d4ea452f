import type { Verification } from './proposal-verify.js';

/** How community votes are run. */
export interface VotePolicy {
  /** Window of a vote opened without `window_ticks`: about 24 h (86,400 s / 0.777 s). */
  default_window_ticks: number;
  /** Distinct staking uids a vote needs for its outcome to count. */
  quorum: number;
  /** Total staked value a vote needs for its outcome to count. */
  min_stake: number;
}

export const DEFAULT_VOTE_POLICY: VotePolicy = Object.freeze({ default_window_ticks: 111_197, quorum: 3, min_stake: 10 });

export type ProposalStatus = 'staging' | 'voting' | 'accepted' | 'rejected' | 'promoted';
export type Side = 'yes' | 'no';

export interface Stake {
  uid: string;
  side: Side;
  envelope_ids: string[];
  value: number;
  tick: number;
}

export interface Tally {
  yes_weight: number;
  no_weight: number;
  stakers: number;
  quorum: number;
  min_stake: number;
}

export interface Resolution {
  outcome: 'accepted' | 'rejected';
  quorum_met: boolean;
  tally: Tally;
  returned: Array<{ envelope_id: string; owner_uid: string; side: Side }>;
  resolved_at_tick: number;
}

/** A proposal as stored. */
export interface ProposalRecord {
  id: string;
  operator_id: string;
  name: string;
  category: string;
  formula: string;
  expression: string;
  description: string;
  inputs: Array<{ name: string; unit: string; description?: string | undefined }>;
  output: { name: string; unit: string; description?: string | undefined };
  source: { citation: string; url: string | null };
  verification: Verification;
  author_uid: string;
  status: ProposalStatus;
  /** The vote's window and the policy figures fixed when it opened; null before open-vote. */
  vote: { opened_at_tick: number; closes_at_tick: number; quorum: number; min_stake: number } | null;
  stakes: Stake[];
  resolution: Resolution | null;
  created_at: string;
}

/** Weights by side, counted by staked value (linear), and the distinct stakers. */
export function tallyOf(p: ProposalRecord): Tally {
  let yes = 0;
  let no = 0;
  for (const s of p.stakes) {
    if (s.side === 'yes') yes += s.value;
    else no += s.value;
  }
  return {
    yes_weight: yes,
    no_weight: no,
    stakers: new Set(p.stakes.map((s) => s.uid)).size,
    quorum: p.vote?.quorum ?? 0,
    min_stake: p.vote?.min_stake ?? 0,
  };
}

/** Accepted only with the quorum of stakers, the minimum stake, and more weight on yes than on no. */
export function outcomeOf(t: Tally): { outcome: 'accepted' | 'rejected'; quorum_met: boolean } {
  const quorumMet = t.stakers >= t.quorum && t.yes_weight + t.no_weight >= t.min_stake;
  return { outcome: quorumMet && t.yes_weight > t.no_weight ? 'accepted' : 'rejected', quorum_met: quorumMet };
}

/** The proposal as the API shows it. */
export function proposalView(p: ProposalRecord) {
  return {
    id: p.id,
    operator_id: p.operator_id,
    name: p.name,
    category: p.category,
    formula: p.formula,
    expression: p.expression,
    description: p.description,
    inputs: p.inputs,
    output: p.output,
    source: p.source,
    verification: p.verification,
    author_uid: p.author_uid,
    status: p.status,
    vote: p.vote && { ...tallyOf(p), opened_at_tick: p.vote.opened_at_tick, closes_at_tick: p.vote.closes_at_tick },
    created_at: p.created_at,
  };
}
