const RANK = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };
/** Field names whose values never reach a log line. */
const SECRET_FIELD = /key|secret|token|password|authorization/i;
export function createLogger(level = 'info', base = {}, write = (line) => process.stderr.write(line)) {
    const min = RANK[level];
    const emit = (lvl, msg, fields) => {
        if (RANK[lvl] < min)
            return;
        const entry = { time: new Date().toISOString(), level: lvl, msg, ...base };
        if (fields)
            for (const [k, v] of Object.entries(fields))
                entry[k] = redact(k, v);
        write(`${JSON.stringify(entry, errorReplacer)}\n`);
    };
    return {
        debug: (m, f) => emit('debug', m, f),
        info: (m, f) => emit('info', m, f),
        warn: (m, f) => emit('warn', m, f),
        error: (m, f) => emit('error', m, f),
        child: (fields) => createLogger(level, { ...base, ...fields }, write),
    };
}
function redact(key, value) {
    if (SECRET_FIELD.test(key) && typeof value === 'string')
        return '[redacted]';
    return value;
}
function errorReplacer(_key, value) {
    if (value instanceof Error) {
        const cause = value.cause;
        return { name: value.name, message: value.message, stack: value.stack, ...(cause ? { cause } : {}) };
    }
    return value;
}
//# sourceMappingURL=log.js.map