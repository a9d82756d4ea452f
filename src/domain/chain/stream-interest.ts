/**
 * Which machines' rows the live streams of this process deliver: what the append relay catches up from
 * the store when the cross-process messaging connection comes back (NOTIFY does not queue for a
 * dropped listener, so rows appended elsewhere meanwhile reached no one here).
 */
export interface StreamInterest {
  /**
   * A stream here delivers `slug`'s rows after `afterSeq` (its starting point); returns the release.
   * Counted: the machine stays watched until every stream that watched it released it.
   */
  watch(slug: string, afterSeq: number): () => void;
  /** A stream here delivers every public machine's rows (the aggregate feed); returns the release. */
  watchAll(): () => void;
  /** Watched machines, and whether every public machine is watched. */
  watched(): { slugs: string[]; all: boolean };
  /** Told when a machine becomes watched, with the stream's starting point. */
  onWatch(cb: (slug: string, afterSeq: number) => void): void;
}

export function createStreamInterest(): StreamInterest {
  const counts = new Map<string, number>();
  let all = 0;
  const watchers: Array<(slug: string, afterSeq: number) => void> = [];

  /** Runs `release` once, however often it is called. */
  const once = (release: () => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  };

  return {
    watch(slug, afterSeq) {
      counts.set(slug, (counts.get(slug) ?? 0) + 1);
      for (const cb of watchers) cb(slug, afterSeq);
      return once(() => {
        const n = (counts.get(slug) ?? 1) - 1;
        if (n <= 0) counts.delete(slug);
        else counts.set(slug, n);
      });
    },
    watchAll() {
      all += 1;
      return once(() => void (all -= 1));
    },
    watched: () => ({ slugs: [...counts.keys()], all: all > 0 }),
    onWatch: (cb) => void watchers.push(cb),
  };
}
