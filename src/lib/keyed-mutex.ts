/**
 * Serializes async sections per key inside this process: a section for a key starts only after every
 * earlier section for that key has settled. Keys with nothing queued hold no memory.
 */
export interface KeyedMutex {
  run<T>(key: string, section: () => Promise<T>): Promise<T>;
}

export function createKeyedMutex(): KeyedMutex {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(key, section) {
      const previous = tails.get(key) ?? Promise.resolve();
      const current = previous.then(section, section);
      const tail = current.catch(() => undefined);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return current;
    },
  };
}
