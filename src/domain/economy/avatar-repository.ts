import type { LogRow, RowInput, Store } from '../../storage/port.js';

/** One encrypted token avatar (AES-256-GCM; see `avatar-vault.ts`). */
export interface AvatarRow extends LogRow {
  type: 'avatar';
  alg: 'A256GCM';
  iv: string;
  ct: string;
  tag: string;
}

const avatarStream = (slug: string) => `tally-avatars/${slug}`;

/** The encrypted avatars of a machine's token, an append-only log per machine: the only module that names it. */
export interface AvatarRepository {
  /** Appends the row; resolves once it is durable. */
  append(slug: string, row: RowInput<AvatarRow>): Promise<AvatarRow>;
  get(slug: string, seq: number): Promise<AvatarRow | undefined>;
}

export function createAvatarRepository(store: Store): AvatarRepository {
  return {
    append: (slug, row) => store.logs.append<AvatarRow>(avatarStream(slug), () => row),
    get: (slug, seq) => store.logs.get<AvatarRow>(avatarStream(slug), seq),
  };
}
