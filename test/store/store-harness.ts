import { onTestFinished } from 'vitest';
import type { Store } from '../../src/storage/port.js';

/** What an adapter's test file hands the contract suite for each test. */
export interface StoreHarness {
  /** An open store over empty storage of its own. */
  store: Store;
  /** Closes the current store (if open) and returns a new open one over the same data. */
  reopen: () => Promise<Store>;
  /** Closes whatever is open and deletes the data. */
  cleanup: () => Promise<void>;
}

export type MakeStore = () => Promise<StoreHarness>;

/** Builds a fresh harness for one test and removes it when the test ends. */
export async function freshStore(makeStore: MakeStore): Promise<StoreHarness> {
  const harness = await makeStore();
  onTestFinished(() => harness.cleanup());
  return harness;
}
