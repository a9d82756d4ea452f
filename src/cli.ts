#!/usr/bin/env node
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { API_VERSION, loadConfig, type Config } from './config.js';
import { settingsHelp } from './config-settings.js';
import { createLogger } from './log.js';
import type { StdioPlan } from './transports/mcp/stdio-plan.js';
import { checkDatabaseReachable, checkDataDir, checkPortFree, explainStartError, StartupError } from './startup-checks.js';

// Each command imports what it needs when it runs: `mcp` must answer `initialize` quickly, before the
// 57 tools and their schemas are even loaded.

const USAGE = `core-server ${API_VERSION}

Usage: core-server <command>

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
  backup TARGET_DIR   consistent copy of CORE_DATA_DIR (also of a running server's), then verify every chain
  --version           print the version
  --help              print this text

Settings (environment variables):
${settingsHelp()}
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
      // The package's own catalogue unless a folder is named: run from elsewhere, it must not compare or write the current folder's.
      return catalog(rest.includes('--check'), rest.find((a) => !a.startsWith('--')) ?? path.join((await import('./lib/paths.js')).packageRoot(), 'catalog'));
    case 'migrate':
      return (await import('./migrate-lowdb.js')).runMigrate(rest, process.env, (text) => process.stdout.write(text));
    case 'backup':
      return (await import('./backup-command.js')).runBackup(rest, process.env, (text) => process.stdout.write(text));
    case 'verify':
      return (await import('./verify-command.js')).runVerify(rest, (text) => process.stdout.write(text));
    case 'verify-manifest':
      return (await import('./manifest-command.js')).runVerifyManifest(rest, (text) => process.stdout.write(text));
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`core-server ${API_VERSION}\n`);
      return 0;
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
  const config = settings();
  // Settings a start cannot go without are checked before the core loads: the answer comes at once and
  // names the variable, instead of an errno after seconds of loading.
  await (config.databaseUrl ? checkDatabaseReachable(config) : checkDataDir(config.dataDir));
  await checkPortFree(config.host, config.port);
  const { startHttpServer } = await import('./server.js');
  const running = await startHttpServer({ config }).catch((err: unknown) => {
    throw explainStartError(err, config);
  });
  const stopBackups = await (await import('./backup-command.js')).answerBackups(config.dataDir, running.core.store, running.core.log);
  onSignals(async () => {
    await stopBackups();
    await running.stop();
  });
  const where = running.reachableUrl;
  process.stdout.write(
    `core-server ${API_VERSION} listening on ${where} (explorer ${where}/, MCP ${where}/api/mcp; data in ${config.databaseUrl ? 'PostgreSQL' : config.dataDir})\n`,
  );
  return -1;
}

/** Longest `mcp` waits at shutdown for tool calls in flight. */
const SHUTDOWN_GRACE_MS = 10_000;

async function mcp(): Promise<number> {
  const exit = (code: number) => process.exit(code);
  // A setting refused, a data directory that cannot be used, a database that does not answer: decided
  // before anything answers `initialize`, and that answer carries the reason (a client shows it) instead
  // of a handshake that succeeds and a connection that then closes.
  let config: Config;
  try {
    config = settings();
  } catch (err) {
    await (await import('./transports/mcp/stdio-refusal.js')).refuseStdio(err instanceof Error ? err.message : String(err), exit);
    return -1;
  }
  const log = createLogger(config.logLevel, { surface: 'mcp-stdio' });
  const unusable = await (config.databaseUrl ? checkDatabaseReachable(config) : checkDataDir(config.dataDir)).then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  const { dataDirHolder } = await import('./storage/lowdb/dir-holder.js');
  const plan: StdioPlan = unusable
    ? { kind: 'refuse', reason: unusable }
    : await (await import('./transports/mcp/stdio-plan.js')).planStdio(config, dataDirHolder);
  if (plan.kind === 'refuse') {
    await (await import('./transports/mcp/stdio-refusal.js')).refuseStdio(plan.reason, exit);
    return -1;
  }
  const { createStdioKey, storeIdOf } = await import('./transports/mcp/stdio-key.js');
  const key = await createStdioKey({
    configured: config.apiKey,
    file: config.keyFile,
    storeId: storeIdOf(config),
    onError: (err) => log.warn('could not remember the minted key', { err }),
  });
  if (plan.kind === 'relay') {
    await (await import('./transports/mcp/stdio-relay.js')).relayStdio({ mcpUrl: plan.mcpUrl, key, log, onDone: exit });
    onSignals(async () => undefined);
    return -1;
  }
  const { serveStdio } = await import('./transports/mcp/stdio-server.js');
  // The transport starts at once; tools/list and tools/call wait for the core to finish loading.
  // A start error is the surface's rejection: requests waiting for the core are answered with its reason.
  const corePromise = import('./compose.js')
    .then(({ createCore }) => createCore({ config, log }))
    .catch((err: unknown) => {
      throw explainStartError(err, config);
    });
  corePromise.catch((err: unknown) => {
    if (err instanceof StartupError) process.stderr.write(`core-server: ${err.message}\n`);
    else log.error('the core failed to start', { err });
    // The reason also reaches the client: the request waiting for the core, or its next one, is answered
    // with it (a client that sent only `initialize` sees it at its first call), then the process ends.
    void started.then((s) => s.answered()).then(() => process.stdout.write('', () => process.exit(1)));
  });
  const started = serveStdio({
    surface: corePromise.then((core) => core.surface),
    key,
    version: config.version,
  });
  const server = await started;
  let stopping: Promise<void> | undefined;
  // Calls in flight finish and answer (stdout stays open after the client closes stdin) before the
  // transport and then the core close; a call still running after SHUTDOWN_GRACE_MS is cut.
  const shutdown = () =>
    (stopping ??= (async () => {
      // Requests read just before stdin ended get to start first.
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.race([server.settled(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
      await server.close();
      await corePromise.then(
        (core) => core.close(),
        () => undefined,
      );
    })());
  // A core that never started ends the process with 1, also when the client leaves first.
  const exitCode = () =>
    corePromise.then(
      () => 0,
      () => 1,
    );
  server.onclose = () => void shutdown().then(exitCode).then(exit);
  process.stdin.once('end', () => void shutdown().then(exitCode).then(exit));
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

/** The configuration; a setting it refuses is a start error (its message names the variable). */
function settings() {
  try {
    return loadConfig();
  } catch (err) {
    throw new StartupError(err instanceof Error ? err.message : String(err), { cause: err });
  }
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
    // Settings and start checks fail with one line naming what to change; anything else is a bug, logged whole.
    if (err instanceof StartupError) process.stderr.write(`core-server: ${err.message}\n`);
    else process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'fatal', err: err instanceof Error ? err.message : String(err) })}\n`);
    process.exit(err instanceof StartupError ? 2 : 1);
  },
);
