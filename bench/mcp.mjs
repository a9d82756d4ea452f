// MCP over HTTP: `tools/call` of the cheap read against the REST call of the same read, and
// `core_http` running that read against the domain tool, each as a raw JSON-RPC POST loop (autocannon).
import { readFileSync } from 'node:fs';
import { load } from './lib.mjs';

/** A process's CPU time (user + system) in µs, from /proc (Linux): the server's own, not the load generator's. */
function cpuUs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
}

/**
 * `load`, with the server's CPU per request when its `pid` is given: on 2 cores shared with the load
 * generator, req/s measures both; CPU per request measures the server alone.
 */
async function measured(url, opts, pid) {
  const before = pid === undefined ? 0 : cpuUs(pid);
  const r = await load(url, opts);
  if (pid === undefined) return r;
  const requests = r.rps * opts.duration;
  return { ...r, server_cpu_us_per_req: requests === 0 ? null : Math.round((cpuUs(pid) - before) / requests) };
}

const rpc = (name, args) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export const MCP_CONSTANT_CALL = rpc('core_constants', { action: 'get', key: 'h' });

// The same call in the modern era (revision 2026-07-28): the per-request `_meta` envelope and the headers
// the revision requires, checked by the server on every request.
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
export const MCP_MODERN_CONSTANT_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'core_constants', arguments: { action: 'get', key: 'h' }, _meta: MODERN_META },
});
const modernHeaders = { ...mcpHeaders, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'core_constants' };
export const MCP_CORE_HTTP_CALL = rpc('core_http', { method: 'GET', path: '/api/constants/h' });

/** Alternating rounds of each side after a warm-up; compares the best round of each. */
async function sideBySide(a, b, { duration, connections, rounds, pid }) {
  await load(a.url, { ...a.opts, duration: Math.max(1, duration / 4), connections });
  await load(b.url, { ...b.opts, duration: Math.max(1, duration / 4), connections });
  const runs = [];
  for (let i = 0; i < rounds; i++)
    runs.push({ a: await measured(a.url, { ...a.opts, duration, connections }, pid), b: await measured(b.url, { ...b.opts, duration, connections }, pid) });
  const best = (side) => runs.map((r) => r[side]).reduce((x, y) => (y.rps > x.rps ? y : x));
  return { a: best('a'), b: best('b'), ratio: +(best('a').rps / best('b').rps).toFixed(3) };
}

export async function mcpVsRest(coreUrl, { duration = 5, connections = 50, rounds = 2, pid } = {}) {
  const check = await fetch(`${coreUrl}/api/mcp`, { method: 'POST', headers: mcpHeaders, body: MCP_CONSTANT_CALL }).then((r) => r.json());
  if (!check.result || check.result.isError) throw new Error(`MCP tools/call failed: ${JSON.stringify(check)}`);
  const mcp = { url: `${coreUrl}/api/mcp`, opts: { method: 'POST', headers: mcpHeaders, body: MCP_CONSTANT_CALL } };
  const rest = { url: `${coreUrl}/api/constants/h`, opts: {} };
  const r = await sideBySide(mcp, rest, { duration, connections, rounds, pid });
  return { mcp: r.a, rest: r.b, ratio: r.ratio };
}

/** `mcpVsRest` with the call made in the modern era. */
export async function mcpModernVsRest(coreUrl, { duration = 5, connections = 50, rounds = 2, pid } = {}) {
  const check = await fetch(`${coreUrl}/api/mcp`, { method: 'POST', headers: modernHeaders, body: MCP_MODERN_CONSTANT_CALL }).then((r) => r.json());
  if (!check.result || check.result.isError || check.result.resultType !== 'complete')
    throw new Error(`MCP 2026-07-28 tools/call failed: ${JSON.stringify(check)}`);
  const mcp = { url: `${coreUrl}/api/mcp`, opts: { method: 'POST', headers: modernHeaders, body: MCP_MODERN_CONSTANT_CALL } };
  const rest = { url: `${coreUrl}/api/constants/h`, opts: {} };
  const r = await sideBySide(mcp, rest, { duration, connections, rounds, pid });
  return { mcp: r.a, rest: r.b, ratio: r.ratio };
}

export async function coreHttpVsTool(coreUrl, { duration = 5, connections = 50, rounds = 2, pid } = {}) {
  const check = await fetch(`${coreUrl}/api/mcp`, { method: 'POST', headers: mcpHeaders, body: MCP_CORE_HTTP_CALL }).then((r) => r.json());
  if (!check.result || check.result.isError) throw new Error(`core_http failed: ${JSON.stringify(check)}`);
  const viaHttp = { url: `${coreUrl}/api/mcp`, opts: { method: 'POST', headers: mcpHeaders, body: MCP_CORE_HTTP_CALL } };
  const direct = { url: `${coreUrl}/api/mcp`, opts: { method: 'POST', headers: mcpHeaders, body: MCP_CONSTANT_CALL } };
  const r = await sideBySide(viaHttp, direct, { duration, connections, rounds, pid });
  return { core_http: r.a, tool: r.b, ratio: r.ratio };
}
