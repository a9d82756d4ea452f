import type { LogQuery, RowInput, Store } from '../../storage/port.js';
import type { EventRecord, InboxRecord } from './contract.types.js';

const eventsStream = (slug: string) => `contracts/${slug}/events`;
const inboxStream = (slug: string) => `contracts/${slug}/inbox`;

/**
 * The events a machine's contracts emit (row type = event name) and the inbox of events delivered to
 * its aggregating contracts (row type = `<source slug>/<name>`): the only module that names those logs.
 */
export interface ContractEventRepository {
  /** Appends the event `build` makes from the log's head, under the log's lock; resolves once durable. */
  appendEvent(slug: string, build: (head: EventRecord | undefined) => RowInput<EventRecord>): Promise<EventRecord>;
  events(slug: string, query?: LogQuery): Promise<EventRecord[]>;
  eventCount(slug: string): Promise<number>;
  appendInbox(slug: string, build: (head: InboxRecord | undefined) => RowInput<InboxRecord>): Promise<InboxRecord>;
  inbox(slug: string, query?: LogQuery): Promise<InboxRecord[]>;
}

export function createContractEventRepository(store: Store): ContractEventRepository {
  return {
    appendEvent: (slug, build) => store.logs.append<EventRecord>(eventsStream(slug), (head) => build(head)),
    events: (slug, query) => store.logs.read<EventRecord>(eventsStream(slug), query),
    eventCount: (slug) => store.logs.count(eventsStream(slug)),
    appendInbox: (slug, build) => store.logs.append<InboxRecord>(inboxStream(slug), (head) => build(head)),
    inbox: (slug, query) => store.logs.read<InboxRecord>(inboxStream(slug), query),
  };
}
