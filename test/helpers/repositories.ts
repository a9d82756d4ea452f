import { createStorageDeps, type StorageDeps } from '../../src/compose-repositories.js';
import { createFakeClock, type Clock } from '../../src/lib/clock.js';
import type { Store } from '../../src/storage/port.js';

/**
 * What the composition root hands services, built over `store`: every repository, the locks and the
 * messages. Spread it into a factory's deps (`createChainService({ ...storageOf(store), clock, bus })`)
 * to build a service by hand. `clock` stamps the node audit rows; a fake one by default.
 */
export function storageOf(store: Store, clock: Clock = createFakeClock()): StorageDeps {
  return createStorageDeps(store, clock);
}
