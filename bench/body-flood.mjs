// The latency of a cheap read (`GET /api/health`) alone, and while six anonymous
// clients keep posting 13 MB `server/discover` requests to POST /api/mcp. Each flooder sends one body
// at a time, on a fresh connection, as fast as the server lets it. The server is the built CLI (`cli`
// lets a run point at another build, e.g. the code before the change).
import { request } from 'node:http';
import { percentile, startProcess, stop, tempDataDir } from './lib.mjs';

const DISCOVER_BYTES = 13e6;

function discoverBody() {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, pad: 'x'.repeat(DISCOVER_BYTES) };
  return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }));
}

/** One POST of `body`; resolves with the status (or the socket error) once the exchange is over. */
function postOnce(url, body) {
  return new Promise((resolve) => {
    const req = request(
      `${url}/api/mcp`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': body.length,
          // As a 2026-07-28 client sends it: the server answers such a discover 200 when it reads it all.
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'server/discover',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
        res.on('error', () => resolve('reset'));
      },
    );
    req.on('error', (err) => resolve(err.code ?? 'error'));
    req.end(body);
  });
}

/** `reads` sequential health reads; their latencies in ms. */
async function reads(url, n) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(`${url}/api/health`);
    await res.arrayBuffer();
    ms.push(performance.now() - t);
  }
  return ms;
}

const summary = (ms) => ({ p50: +percentile(ms, 50).toFixed(2), p99: +percentile(ms, 99).toFixed(2), max: +Math.max(...ms).toFixed(2) });

export async function bodyFlood({ cli = 'dist/src/cli.js', readCount = 300, flooders = 6 } = {}) {
  const server = await startProcess([cli, 'serve'], { PORT: '0', CORE_DATA_DIR: tempDataDir(), LOG_LEVEL: 'info' }, /"url":"(http:[^"]+)"/);
  const url = server.match[1];
  try {
    await reads(url, 50); // warm-up
    const alone = summary(await reads(url, readCount));
    const body = discoverBody();
    let running = true;
    const statuses = {};
    let sent = 0;
    const flood = async () => {
      while (running) {
        const status = await postOnce(url, body);
        statuses[status] = (statuses[status] ?? 0) + 1;
        sent++;
      }
    };
    const floods = Array.from({ length: flooders }, flood);
    // Let every flooder get its first body going before measuring.
    await new Promise((r) => setTimeout(r, 500));
    const started = performance.now();
    const during = summary(await reads(url, readCount));
    const seconds = (performance.now() - started) / 1000;
    running = false;
    await Promise.all(floods);
    return { alone, during, flooders, discover_bytes: body.length, discovers_per_s: +(sent / seconds).toFixed(1), statuses };
  } finally {
    await stop(server.child);
  }
}
