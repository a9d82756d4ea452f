import { DuplicateKeyError, type DocPage, type DocPageRequest, type Store } from '../../storage/port.js';

export interface UserRecord {
  uid: string;
  created_at: string;
  created_tick: number;
}

/** Index from the SHA-256 of a normalised e-mail address to its uid (collection `user-emails`). */
export interface EmailIndexRecord {
  email_hash: string;
  uid: string;
  created_at: string;
}

/** The users of this node, id = uid (developer-key identities are not users). */
const USERS = 'users';
/**
 * One record per e-mail address that signed in, id = its hash. Kept as its own collection rather than
 * a field of the user so that `insert`'s uniqueness decides which of two concurrent first logins wins.
 */
const USER_EMAILS = 'user-emails';

export interface UserRepository {
  /** Stores a new user; fails with `DuplicateKeyError` when the uid exists. */
  insert(user: UserRecord): Promise<void>;
  byUid(uid: string): Promise<UserRecord | undefined>;
  /** Users in the order they were created, a page at a time (all of them when `limit` is absent). */
  page(request?: DocPageRequest): Promise<DocPage<UserRecord>>;
  /** The uid an e-mail hash signs in as, if it signed in before. */
  uidForEmail(emailHash: string): Promise<string | undefined>;
  /**
   * Binds the e-mail hash to `uid` unless it is bound already, atomically across every process sharing
   * the store: returns the uid it is bound to afterwards (`uid` itself only when this call bound it).
   */
  claimEmail(emailHash: string, uid: string, createdAt: string): Promise<string>;
}

/** The one owner of the `users` and `user-emails` collections. */
export function createUserRepository(store: Store): UserRepository {
  return {
    insert: (user) => store.docs.insert(USERS, user.uid, user),

    byUid: (uid) => store.docs.get<UserRecord>(USERS, uid),

    page: (request) => store.docs.find<UserRecord>(USERS, {}, request),

    async uidForEmail(emailHash) {
      return (await store.docs.get<EmailIndexRecord>(USER_EMAILS, emailHash))?.uid;
    },

    async claimEmail(emailHash, uid, createdAt) {
      try {
        await store.docs.insert<EmailIndexRecord>(USER_EMAILS, emailHash, { email_hash: emailHash, uid, created_at: createdAt });
        return uid;
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        return (await store.docs.get<EmailIndexRecord>(USER_EMAILS, emailHash))!.uid;
      }
    },
  };
}
