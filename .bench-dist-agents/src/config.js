import path from 'node:path';
const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'];
/** The version of the API description (OpenAPI `info.version`) this server implements. */
export const API_VERSION = '1.287.0';
/** Reads the configuration from an environment (defaults to `process.env`). */
export function loadConfig(env = process.env) {
    const port = Number(env.PORT ?? 8787);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new Error(`PORT must be an integer between 0 and 65535, got "${env.PORT}"`);
    }
    const level = (env.LOG_LEVEL ?? 'info').toLowerCase();
    if (!LOG_LEVELS.includes(level)) {
        throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
    }
    const toolsets = env.CORE_TOOLSETS?.split(',').map((s) => s.trim()).filter(Boolean);
    return {
        port,
        host: env.HOST ?? '127.0.0.1',
        dataDir: path.resolve(env.CORE_DATA_DIR ?? './data'),
        databaseUrl: env.DATABASE_URL || undefined,
        receiptKey: env.CORE_RECEIPT_KEY || undefined,
        apiKey: env.CORE_API_KEY || undefined,
        toolsets: toolsets && toolsets.length > 0 ? toolsets : undefined,
        readOnly: env.CORE_READ_ONLY === '1' || env.CORE_READ_ONLY === 'true',
        logLevel: level,
        version: API_VERSION,
    };
}
//# sourceMappingURL=config.js.map