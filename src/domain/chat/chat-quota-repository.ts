import type { Store } from '../../storage/port.js';

/** A caller's answers on one UTC day; a record of an earlier day counts as none today. */
interface QuotaRecord {
  uid: string;
  day: string;
  used: number;
}

/** One record per caller that ever chatted, id = uid, replaced when the day changes. */
const CHAT_QUOTAS = 'chat-quotas';

export interface ChatQuotaRepository {
  /**
   * Counts one more answer on `day` unless `limit` are counted already; returns the count afterwards,
   * or undefined when refused. Check and count are one atomic update, across every process sharing the store.
   */
  take(uid: string, day: string, limit: number): Promise<number | undefined>;
  /** Uncounts one answer of `day` (a failed call costs nothing); nothing when the day has passed. */
  giveBack(uid: string, day: string): Promise<void>;
  /** Answers counted on `day`. */
  usedOn(uid: string, day: string): Promise<number>;
}

/** The one owner of the `chat-quotas` collection. */
export function createChatQuotaRepository(store: Store): ChatQuotaRepository {
  return {
    async take(uid, day, limit) {
      let over = false;
      const rec = await store.docs.update<QuotaRecord>(CHAT_QUOTAS, uid, (cur) => {
        const used = cur && cur.day === day ? cur.used : 0;
        if (used >= limit) {
          over = true;
          return undefined;
        }
        return { uid, day, used: used + 1 };
      });
      return over ? undefined : rec!.used;
    },

    async giveBack(uid, day) {
      await store.docs.update<QuotaRecord>(CHAT_QUOTAS, uid, (cur) => (cur && cur.day === day && cur.used > 0 ? { ...cur, used: cur.used - 1 } : undefined));
    },

    async usedOn(uid, day) {
      const rec = await store.docs.get<QuotaRecord>(CHAT_QUOTAS, uid);
      return rec && rec.day === day ? rec.used : 0;
    },
  };
}
