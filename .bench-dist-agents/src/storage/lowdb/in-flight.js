export function createInFlight(assertAccepting) {
    const running = new Set();
    function run(call) {
        try {
            assertAccepting();
        }
        catch (error) {
            return Promise.reject(error);
        }
        const work = call();
        running.add(work);
        const forget = () => void running.delete(work);
        work.then(forget, forget);
        return work;
    }
    return {
        guard(api) {
            const guarded = {};
            for (const [name, method] of Object.entries(api)) {
                const fn = method;
                guarded[name] = (...args) => run(() => fn(...args));
            }
            return guarded;
        },
        async drain() {
            while (running.size > 0)
                await Promise.allSettled([...running]);
        },
    };
}
//# sourceMappingURL=in-flight.js.map