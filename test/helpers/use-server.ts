import { afterAll, beforeAll, onTestFinished } from 'vitest';
import type { Clock } from '../../src/lib/clock.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * The running server of a file (or of the `describe` it is called in): started before the first test
 * of that scope and closed after the last. The handle stands for the server itself, so module-level
 * helpers close over it as they would over `let server`; reading it before the hooks ran throws.
 * `env` may be a function, for settings an earlier `beforeAll` makes (a fixture's address).
 */
export function useServer(env: Record<string, string> | (() => Record<string, string>) = {}, clock?: Clock): TestServer {
  let running: TestServer | undefined;
  beforeAll(async () => {
    running = await startTestServer(typeof env === 'function' ? env() : env, clock);
  });
  afterAll(async () => {
    const closing = running;
    running = undefined;
    await closing?.close();
  });
  const current = (prop: PropertyKey): TestServer => {
    if (!running) throw new Error(`the test server is not running (reading ${String(prop)} outside its beforeAll/afterAll)`);
    return running;
  };
  return new Proxy({} as TestServer, {
    get: (_target, prop) => {
      // Not a promise: `await` and vitest's thenable checks look for `then` before any hook ran.
      if (prop === 'then') return undefined;
      return Reflect.get(current(prop), prop);
    },
    has: (_target, prop) => Reflect.has(current(prop), prop),
    ownKeys: () => Reflect.ownKeys(current('keys')),
    getOwnPropertyDescriptor: (_target, prop) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(current(prop), prop);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}

/** A server of the current test's own (a configuration, a clock or a store of its own), closed when the test ends, passed or failed. */
export async function serverForTest(env: Record<string, string> = {}, clock?: Clock): Promise<TestServer> {
  const server = await startTestServer(env, clock);
  onTestFinished(() => server.close());
  return server;
}
