import type { LogQuery, LogRow, Store } from '../../storage/port.js';

/** A contact message as sent. */
export interface ContactMessage {
  id: string;
  name: string;
  email: string;
  subject: string | null;
  message: string;
  /** uid of the sender when they were signed in. */
  from_uid: string | null;
  received_at: string;
}

/** A contact message as kept: append-only, read by the node's operators. */
export interface ContactRow extends LogRow, ContactMessage {
  type: 'contact';
}

/** Every contact message, one append-only stream for the node. */
const CONTACT_STREAM = 'contact/messages';

export interface ContactRepository {
  /**
   * Appends a message at `tick`, or at the last message's tick if that is later, so the stream's ticks
   * never go backwards; resolves with the stored row once it is durable.
   */
  append(message: ContactMessage, tick: number): Promise<ContactRow>;
  /** Stored messages, oldest first (newest first with `reverse`), within the query's seq and tick bounds. */
  messages(query?: LogQuery): Promise<ContactRow[]>;
}

/** The one owner of the `contact/messages` stream. */
export function createContactRepository(store: Store): ContactRepository {
  return {
    append: (message, tick) =>
      store.logs.append<ContactRow>(CONTACT_STREAM, (head) => ({ tick: Math.max(tick, head?.tick ?? 0), type: 'contact', ...message })),

    messages: (query) => store.logs.read<ContactRow>(CONTACT_STREAM, query),
  };
}
