import { EventEmitter } from 'node:events';
export function createEventBus() {
    const emitter = new EventEmitter();
    // Streams subscribe per client; the default cap of 10 would warn under normal load.
    emitter.setMaxListeners(0);
    return {
        emit: (name, payload) => {
            emitter.emit(name, payload);
        },
        on: (name, listener) => {
            emitter.on(name, listener);
            return () => emitter.off(name, listener);
        },
    };
}
//# sourceMappingURL=event-bus.js.map