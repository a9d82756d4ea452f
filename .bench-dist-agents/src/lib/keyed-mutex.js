export function createKeyedMutex() {
    const tails = new Map();
    return {
        run(key, section) {
            const previous = tails.get(key) ?? Promise.resolve();
            const current = previous.then(section, section);
            const tail = current.catch(() => undefined);
            tails.set(key, tail);
            void tail.then(() => {
                if (tails.get(key) === tail)
                    tails.delete(key);
            });
            return current;
        },
    };
}
//# sourceMappingURL=keyed-mutex.js.map