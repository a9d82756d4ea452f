#!/usr/bin/env node
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from './config.js';
import { createLogger } from './log.js';

// Each command imports what it needs when it runs: `mcp` must answer `initialize` quickly, before the
// 57 tools and their schemas are even loaded.

const USAGE = `Usage: core-server <command>

Commands:
  serve               HTTP server: REST under /api and MCP at POST /api/mcp (PORT, HOST, CORE_DATA_DIR)
  mcp                 MCP over stdio (CORE_API_KEY is the caller's key); logs go to stderr. On a data
                      directory a running \`serve\` holds, relays to that server's MCP endpoint
  catalog [--check]   write the generated catalog/ files, or with --check fail if they drifted
  verify FILE...      check a seal or an exported chain offline (verify --help for details); exit 0 or 1
  verify-manifest FILE --key KEYFILE [--since VERSION]
                      check a signed update manifest against a pinned node key and list what changed
  migrate --from-lowdb DIR
                      copy a stopped server's data directory into DATABASE_URL, then verify every chain
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Whatever this process creates (data directory, keys, journals, temp files) is its owner's alone;
  // the catalog is written for the repository and keeps the usual modes.
  if (command !== 'catalog') process.umask(0o077);
  switch (command) {
    case 'serve':
      return serve();
    case 'mcp':
      return mcp();
    case 'catalog':
      return catalog(rest.includes('--check'), rest.find((a) => !a.startsWith('--')) ?? 'catalog');
    case 'migrate':
      return (await import('./migrate-lowdb.js')).runMigrate(rest, process.env, (text) => process.stdout.write(text));
    case 'verify':
      return (await import('./verify-command.js')).runVerify(rest, (text) => process.stdout.write(text));
    case 'verify-manifest':
      return (await import('./manifest-command.js')).runVerifyManifest(rest, (text) => process.stdout.write(text));
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

async function serve(): Promise<number> {
  const config = loadConfig();
  const { startHttpServer } = await import('./server.js');
  const running = await startHttpServer({ config });
  onSignals(async () => running.stop());
  return -1;
}

/** Longest `mcp` waits at shutdown for tool calls in flight. */
const SHUTDOWN_GRACE_MS = 10_000;

async function mcp(): Promise<number> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, { surface: 'mcp-stdio' });
  // Decided before anything answers `initialize`: a client must never see a handshake succeed and then
  // the connection close because another process holds the data directory.
  const plan = await (await import('./transports/mcp/stdio-plan.js')).planStdio(config);
  const exit = (code: number) => process.exit(code);
  if (plan.kind === 'refuse') {
    await (await import('./transports/mcp/stdio-refusal.js')).refuseStdio(plan.reason, exit);
    return -1;
  }
  if (plan.kind === 'relay') {
    await (await import('./transports/mcp/stdio-relay.js')).relayStdio({ mcpUrl: plan.mcpUrl, apiKey: config.apiKey, log, onDone: exit });
    onSignals(async () => undefined);
    return -1;
  }
  const { serveStdio } = await import('./transports/mcp/stdio-server.js');
  // The transport starts at once; tools/list and tools/call wait for the core to finish loading.
  const corePromise = import('./compose.js').then(({ createCore }) => createCore({ config, log }));
  corePromise.catch((err: unknown) => {
    log.error('the core failed to start', { err });
    process.exit(1);
  });
  const server = await serveStdio({
    surface: corePromise.then((core) => core.surface),
    apiKey: config.apiKey,
    version: config.version,
  });
  let stopping: Promise<void> | undefined;
  // Calls in flight finish and answer (stdout stays open after the client closes stdin) before the
  // transport and then the core close; a call still running after SHUTDOWN_GRACE_MS is cut.
  const shutdown = () =>
    (stopping ??= (async () => {
      // Requests read just before stdin ended get to start first.
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.race([server.settled(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
      await server.close();
      await (await corePromise).close();
    })());
  server.onclose = () => void shutdown().then(() => process.exit(0));
  process.stdin.once('end', () => void shutdown().then(() => process.exit(0)));
  onSignals(shutdown);
  return -1;
}

async function catalog(check: boolean, dir: string): Promise<number> {
  const [{ allTools }, { catalogFiles }, { buildRegistry }] = await Promise.all([
    import('../tools/index.js'),
    import('./registry/catalog-files.js'),
    import('./registry/registry.js'),
  ]);
  const files = catalogFiles(buildRegistry(allTools));
  if (!check) {
    await mkdir(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
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

function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        process.stderr.write(`shutdown after ${signal} failed: ${String(err)}\n`);
        process.exit(1);
      });
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'fatal', err: err instanceof Error ? err.message : String(err) })}\n`);
    process.exit(1);
  },
);
