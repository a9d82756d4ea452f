import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const WORKLOADS = [
  /`tools\/list` of the 57 default tools/,
  /vs bare Express 5/,
  /vs bare `node:http`/,
  /MCP `tools\/call`/,
  /MCP 2026-07-28 `tools\/call`/,
  /`core_http`/,
  /on lowdb/,
  /on PostgreSQL/,
  /two server processes on one chain/,
  /`POST \/api\/demo-key\/mint` on lowdb with 1,000 users stored vs 100/,
  /`POST \/api\/chain\/state-machines` on lowdb with 1,000 users and machines stored/,
  /machine lists and key lookup on lowdb/,
  /`POST \/api\/demo-key\/mint` on PostgreSQL/,
  /`POST \/api\/chain\/state-machines` on PostgreSQL/,
  /machine lists and key lookup on PostgreSQL/,
  /recurring contracts/,
  /across two server processes on PostgreSQL/,
  /contracts over \d+ machines, mixed triggers, lowdb/,
  /contracts over many machines, mixed triggers, on PostgreSQL|contracts over \d+ machines, mixed triggers, postgres/,
  /SSE:/,
  /13 MB `server\/discover` flood/,
  /sandbox `print\(1\)`/,
  /cold start/,
  /`eigen-symmetric` 150×150, eigenvalues only/,
  /`eigen-symmetric` 150×150 with eigenvectors/,
  /`linear-lu` 200×200 solve with estimated condition number/,
  /`linear-lu` 200×200 solve with exact condition number/,
  /idle RSS/,
  /RSS growth/,
  /`GET \/api\/health` alone/,
  /beside one demo key simulating/,
  /beside eight parallel simulations/,
];

let dir: string;
let report: string;
let json: { rows: Array<{ id: string; figure: unknown; holds: unknown }> };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bench-quick-'));
  const out = path.join(dir, 'benchmarks.md');
  // Runs against dist/ (`npm test` builds first); the quick mode keeps every workload to a second or two.
  const { stdout } = await run(process.execPath, ['bench/run.mjs', '--quick', '--out', out], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env },
  });
  json = JSON.parse(stdout);
  report = await readFile(out, 'utf8');
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm run bench -- --quick', () => {
  it('writes a dated section with the commit, machine, Node version and command', () => {
    expect(report).toMatch(/^## Run \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(quick mode/m);
    expect(report).toMatch(/^- commit: `([0-9a-f]+|unknown)`/m);
    expect(report).toContain(`Node ${process.version}`);
    expect(report).toContain('- command: `node bench/run.mjs --quick --out ');
  });

  it('has one table row per workload, each with a numeric figure and a verdict', () => {
    const rows = report.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| workload'));
    expect(rows).toHaveLength(WORKLOADS.length);
    for (const [i, pattern] of WORKLOADS.entries()) {
      const cells = rows[i]!.split(' | ');
      expect(cells[0]).toMatch(pattern);
      const skippedPg = /PostgreSQL/.test(cells[0]!) && !process.env.DATABASE_URL;
      if (skippedPg) {
        expect(cells[1]).toBe('skipped');
        expect(rows[i]).toContain('DATABASE_URL is not set');
        continue;
      }
      expect(Number.isFinite(Number(cells[1])), `${cells[0]}: figure ${cells[1]}`).toBe(true);
      expect(cells[6]).toMatch(/^(yes|\*\*NO\*\*|—)$/);
    }
  });

  it('prints the same rows as JSON on stdout', () => {
    expect(json.rows.map((r) => r.id)).toEqual([
      'tools_list_tokens',
      'constants_vs_express',
      'constants_vs_node_http',
      'mcp_vs_rest',
      'mcp_modern_vs_rest',
      'core_http_vs_tool',
      'chain_lowdb',
      'chain_postgres',
      'chain_postgres_two',
      'growth_mint_lowdb',
      'growth_create_lowdb',
      'growth_lists_lowdb',
      'growth_mint_postgres',
      'growth_create_postgres',
      'growth_lists_postgres',
      'contracts',
      'contracts_postgres',
      'contracts_mixed_lowdb',
      'contracts_mixed_postgres',
      'sse_delivery',
      'mcp_body_flood',
      'sandbox',
      'mcp_cold_start',
      'eigen_values_vs_lapack',
      'eigen_vectors_vs_lapack',
      'lu_vs_lapack',
      'lu_exact_vs_lapack',
      'memory_idle',
      'memory_growth',
      'health_alone',
      'health_beside_finding_2',
      'health_beside_finding_3',
    ]);
  });
});
