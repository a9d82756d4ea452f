import { EventEmitter } from 'node:events';
import type { Json, PubSub } from '../../src/storage/port.js';

/**
 * The cross-process messaging of several in-process "processes", each with its own `PubSub`, with the
 * faults of the real one under a test's control: `cut` a process off (messages published meanwhile never
 * reach it, as NOTIFY does not queue for a dropped listener), `restore` it (its `onResume` listeners run),
 * and `dropNext` loses the next message on a channel to one process (a lost or garbled NOTIFY).
 */
export function createFakeNet() {
  const nodes = new Map<string, { emitter: EventEmitter; resumed: EventEmitter; down: boolean; drops: Map<string, number> }>();

  function node(name: string) {
    let n = nodes.get(name);
    if (!n) {
      n = { emitter: new EventEmitter(), resumed: new EventEmitter(), down: false, drops: new Map() };
      n.emitter.setMaxListeners(0);
      nodes.set(name, n);
    }
    return n;
  }

  return {
    pubsub(name: string): PubSub {
      const me = node(name);
      return {
        publish(channel: string, payload: Json) {
          // A message goes out on the pool even while the sender's own listening connection is down.
          const copy = JSON.parse(JSON.stringify(payload)) as Json;
          queueMicrotask(() => {
            for (const n of nodes.values()) {
              if (n.down) continue;
              const drops = n.drops.get(channel) ?? 0;
              if (drops > 0) {
                n.drops.set(channel, drops - 1);
                continue;
              }
              n.emitter.emit(channel, copy);
            }
          });
        },
        subscribe(channel, cb) {
          me.emitter.on(channel, cb);
          return () => void me.emitter.off(channel, cb);
        },
        onResume(cb) {
          me.resumed.on('resume', cb);
          return () => void me.resumed.off('resume', cb);
        },
      };
    },
    /** The process stops hearing messages. */
    cut(name: string): void {
      node(name).down = true;
    },
    /** The process hears messages again, and is told it resumed. */
    restore(name: string): void {
      const n = node(name);
      n.down = false;
      n.resumed.emit('resume');
    },
    /** The next `count` messages on `channel` are lost to the process. */
    dropNext(name: string, channel: string, count = 1): void {
      node(name).drops.set(channel, count);
    },
  };
}
