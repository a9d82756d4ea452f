import { CoreError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { randomToken } from '../../lib/hash.js';
import { createRateWindow } from './rate-window.js';
import type { ContactRepository } from './contact-repository.js';

export type { ContactRow } from './contact-repository.js';

export interface ContactInput {
  name: string;
  email: string;
  subject?: string | undefined;
  message: string;
}

/** Who sent it: a signed-in uid, else the client address; neither is required (stdio has no address). */
export interface ContactSender {
  uid: string | null;
  ip?: string | undefined;
}

export interface ContactService {
  /** Stores a message; RATE_LIMITED beyond 5 an hour per sender or 100 an hour in all. */
  send(input: ContactInput, sender: ContactSender): Promise<{ id: string; received_at: string }>;
}

const PER_SENDER = { limit: 5, windowMs: 60 * 60 * 1000 };
/** A ceiling over all senders, so rotating addresses cannot fill the disk. */
const OVERALL = { limit: 100, windowMs: 60 * 60 * 1000 };

export function createContactService(deps: { contacts: ContactRepository; clock: Clock }): ContactService {
  const { contacts, clock } = deps;
  const perSender = createRateWindow(PER_SENDER);
  const overall = createRateWindow(OVERALL);

  return {
    async send(input, sender) {
      const now = clock.now();
      const key = sender.uid ? `uid:${sender.uid}` : sender.ip ? `ip:${sender.ip}` : 'local';
      if (perSender.retryAfterMs(key, now) > 0 || !overall.hit('all', now)) {
        const wait = Math.ceil(Math.max(perSender.retryAfterMs(key, now), overall.retryAfterMs('all', now)) / 1000);
        throw new CoreError('RATE_LIMITED', `Too many contact messages; try again in ${wait} s`, { retry_after_s: wait });
      }
      perSender.hit(key, now);
      const received_at = new Date(now).toISOString();
      const id = `msg_${randomToken(16)}`;
      await contacts.append(
        { id, name: input.name, email: input.email, subject: input.subject ?? null, message: input.message, from_uid: sender.uid, received_at },
        clock.tick(),
      );
      return { id, received_at };
    },
  };
}
