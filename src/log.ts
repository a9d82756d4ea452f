export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Structured JSON-lines logger on stderr: stdout carries the MCP protocol under stdio. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Field names whose values never reach a log line. */
const SECRET_FIELD = /key|secret|token|password|authorization/i;

export function createLogger(
  level: LogLevel = 'info',
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const min = RANK[level];
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < min) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg, ...base };
    if (fields) for (const [k, v] of Object.entries(fields)) entry[k] = redact(k, v);
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

function redact(key: string, value: unknown): unknown {
  if (SECRET_FIELD.test(key) && typeof value === 'string') return '[redacted]';
  return value;
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const cause = (value as { cause?: unknown }).cause;
    return { name: value.name, message: value.message, stack: value.stack, ...(cause ? { cause } : {}) };
  }
  return value;
}
