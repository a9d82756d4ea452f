#!/usr/bin/env node
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { allTools } from '../tools/index.js';
import { loadConfig } from './config.js';
import { createCore } from './compose.js';
import { createLogger } from './log.js';
import { catalogFiles } from './registry/catalog-files.js';
import { buildRegistry } from './registry/registry.js';
import { startHttpServer } from './server.js';
import { serveStdio } from './transports/mcp/stdio-server.js';
import { runVerify } from './verify-command.js';
const USAGE = `Usage: core-server <command>

Commands:
  serve               HTTP server: REST under /api and MCP at POST /api/mcp (PORT, HOST, CORE_DATA_DIR)
  mcp                 MCP over stdio (CORE_API_KEY is the caller's key); logs go to stderr
  catalog [--check]   write the generated catalog/ files, or with --check fail if they drifted
  verify FILE...      check a seal or an exported chain offline (verify --help for details); exit 0 or 1
`;
async function main(argv) {
    const [command, ...rest] = argv;
    switch (command) {
        case 'serve':
            return serve();
        case 'mcp':
            return mcp();
        case 'catalog':
            return catalog(rest.includes('--check'), rest.find((a) => !a.startsWith('--')) ?? 'catalog');
        case 'verify':
            return runVerify(rest, (text) => process.stdout.write(text));
        case undefined:
        case 'help':
        case '--help':
        case '-h':
            process.stdout.write(USAGE);
            return command === undefined ? 1 : 0;
        default:
            process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
            return 2;
    }
}
async function serve() {
    const config = loadConfig();
    const running = await startHttpServer({ config });
    onSignals(async () => running.stop());
    return -1;
}
async function mcp() {
    const config = loadConfig();
    const log = createLogger(config.logLevel, { surface: 'mcp-stdio' });
    const core = await createCore({ config, log });
    const server = await serveStdio({
        surface: core.surface,
        apiKey: config.apiKey,
        version: config.version,
    });
    const shutdown = async () => {
        await server.close();
        await core.close();
    };
    server.onclose = () => void core.close().then(() => process.exit(0));
    process.stdin.once('end', () => void shutdown().then(() => process.exit(0)));
    onSignals(shutdown);
    return -1;
}
async function catalog(check, dir) {
    const files = catalogFiles(buildRegistry(allTools));
    if (!check) {
        await mkdir(dir, { recursive: true });
        for (const [name, text] of Object.entries(files))
            await writeFile(path.join(dir, name), text);
        process.stdout.write(`wrote ${Object.keys(files).length} files to ${dir}/\n`);
        return 0;
    }
    let drift = 0;
    for (const [name, text] of Object.entries(files)) {
        const current = await readFile(path.join(dir, name), 'utf8').catch(() => '');
        if (current !== text) {
            drift += 1;
            process.stderr.write(`${dir}/${name} differs from the registry; run: npm run catalog\n`);
        }
    }
    return drift === 0 ? 0 : 1;
}
function onSignals(stop) {
    let stopping = false;
    const handler = (signal) => {
        if (stopping)
            return;
        stopping = true;
        stop()
            .then(() => process.exit(0))
            .catch((err) => {
            process.stderr.write(`shutdown after ${signal} failed: ${String(err)}\n`);
            process.exit(1);
        });
    };
    process.once('SIGTERM', handler);
    process.once('SIGINT', handler);
}
main(process.argv.slice(2)).then((code) => {
    if (code >= 0)
        process.exitCode = code;
}, (err) => {
    process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'fatal', err: err instanceof Error ? err.message : String(err) })}\n`);
    process.exit(1);
});
//# sourceMappingURL=cli.js.map