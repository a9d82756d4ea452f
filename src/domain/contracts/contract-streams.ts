import type { SseEvent, SseSource } from '../../lib/handler-results.js';
import { createOrderedRelay } from '../chain/ordered-relay.js';
import { seqOfEventId } from '../chain/streams.service.js';
import { eventView } from './contract-audit.service.js';
import type { ContractsCore } from './contracts-core.js';
import { type ContractRecord, type EventRecord, type TransitionRecord } from './contract.types.js';

/** At most this many missed rows are replayed on resume. */
export const MAX_REPLAY = 10_000;

export interface ContractStreams {
  /** Every event emitted on the machine (`event.emitted`), id `<slug>:<seq>`; resumes after Last-Event-ID. */
  events(slug: string): SseSource;
  /** Every successful transition of one contract (`contract.transitioned`), id the transition id; resumes after it. */
  transitions(record: ContractRecord): SseSource;
}

export function createContractStreams(core: ContractsCore): ContractStreams {
  const { contractEvents } = core.deps;
  const onError = core.deps.onError;

  return {
    events(slug) {
      return {
        open(push, lastEventId, end) {
          const resumeAfter = seqOfEventId(lastEventId, slug);
          const relay = createOrderedRelay<EventRecord>({
            seqOf: (row) => row.seq,
            fetch: (from, to, limit) => contractEvents.events(slug, { fromSeq: from, toSeq: to, limit }),
            start: contractEvents.eventCount(slug).then((count) => {
              const headSeq = count - 1;
              // Rows after the head are this stream's live ones: from here on they are caught up after an outage.
              core.hub.started('events', slug, headSeq);
              const after = resumeAfter === undefined ? headSeq : Math.max(Math.min(resumeAfter, headSeq), headSeq - MAX_REPLAY);
              return { after, target: headSeq };
            }),
            push: (row) => push({ id: `${slug}:${row.seq}`, event: 'event.emitted', data: eventView(slug, row) }),
            onError,
            ...(end ? { end } : {}),
          });
          const off = core.hub.onEvent(slug, (row) => relay.offer(row));
          return () => {
            off();
            relay.close();
          };
        },
      };
    },

    transitions(record) {
      return {
        open(push, lastEventId) {
          let closed = false;
          let lastN = 0;
          /** Log seq of the row at `lastN` (-1: not known). */
          let lastSeq = -1;
          let buffered: TransitionRecord[] | undefined = [];
          let taking: Promise<void> = Promise.resolve();
          const deliver = (row: TransitionRecord) => {
            if (closed || row.n <= lastN) return;
            lastN = row.n;
            lastSeq = row.seq;
            if (row.success) push(transitionEvent(row));
          };
          // A live row past the next one (relayed late from another process, or its message lost): the rows
          // between are read from the log first, so the stream has no gap.
          const take = async (row: TransitionRecord) => {
            if (closed || row.n <= lastN) return;
            // The rows after `lastN` start after its seq, or at the log's start when there were none.
            if (row.n > lastN + 1 && (lastSeq >= 0 || lastN === 0)) {
              const missed = await core.contracts.transitions(record, { ...(lastSeq >= 0 ? { afterSeq: lastSeq } : {}), limit: row.n - lastN - 1 });
              for (const r of missed) if (r.n < row.n) deliver(r);
            }
            deliver(row);
          };
          const offer = (row: TransitionRecord) => {
            taking = taking.then(() => take(row)).catch(onError);
          };
          // Live rows are buffered while the missed ones are read, then merged by position: no gap, no repeat.
          const off = core.hub.onTransition(record.id, record.slug, (row) => (buffered ? buffered.push(row) : offer(row)));
          void (async () => {
            const runtime = await core.contracts.runtime(record);
            core.hub.started('transitions', record.slug, runtime.last?.seq ?? -1);
            const after = nOfTransitionId(lastEventId, record.id);
            lastN = after === undefined ? runtime.n : Math.max(after, runtime.n - MAX_REPLAY);
            if (lastN === runtime.n) lastSeq = runtime.last?.seq ?? -1;
            const missed = runtime.n - lastN;
            if (missed > 0) {
              const rows = await core.contracts.recentTransitions(record, missed);
              for (const row of rows.reverse()) deliver(row);
            }
            const live = buffered ?? [];
            buffered = undefined;
            for (const row of live) offer(row);
          })().catch(onError);
          return () => {
            closed = true;
            off();
          };
        },
      };
    },
  };
}

function transitionEvent(row: TransitionRecord): SseEvent {
  return {
    id: row.id,
    event: 'contract.transitioned',
    data: {
      id: row.id,
      contract_id: row.contract_id,
      from_state: row.from_state,
      to_state: row.to_state,
      operator: row.operators[row.operators.length - 1] ?? null,
      proof_digest: row.proof_digest,
      tick: row.tick_number,
      created_at: row.created_at,
    },
  };
}

/** The row position in a transition id `<contract id>:<n>`; undefined for anything else. */
function nOfTransitionId(id: string | undefined, contractId: string): number | undefined {
  if (id === undefined) return undefined;
  const at = id.lastIndexOf(':');
  if (at < 0 || id.slice(0, at) !== contractId) return undefined;
  const n = Number(id.slice(at + 1));
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
