// Writes one dated section of results to the benchmarks history (appended, never overwriting).
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { root } from './lib.mjs';

function commit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

const cell = (v) => String(v).replaceAll('|', '\\|');

export function renderSection({ rows, quick, command, startedAt, note }) {
  const holds = (r) => (r.holds === null ? '—' : r.holds ? 'yes' : '**NO**');
  const lines = [
    '',
    `## Run ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC${quick ? ' (quick mode: small sizes, not comparable)' : ''}`,
    '',
    `- commit: \`${commit()}\``,
    `- machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.platform()} ${os.release()}`,
    `- Node ${process.version}; load generator: autocannon in the bench process, same machine`,
    `- command: \`${command}\``,
    ...(note ? [`- conditions: ${note}`] : []),
    '',
    '| workload | figure | unit | baseline (same run) | ratio | target | holds | detail |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${cell(r.workload)} | ${cell(r.figure)} | ${cell(r.unit)} | ${cell(r.baseline)} | ${cell(r.ratio)} | ${cell(r.target)} | ${holds(r)} | ${cell(r.detail ?? '')} |`,
    ),
  ];
  const missed = rows.filter((r) => r.holds === false);
  lines.push('');
  lines.push(missed.length === 0 ? 'Every target with a check holds in this run.' : `Targets missed in this run: ${missed.map((r) => r.id).join(', ')}.`);
  return `${lines.join('\n')}\n`;
}

export function writeReport(out, section) {
  if (!existsSync(out)) writeFileSync(out, '# Benchmarks\n\nWritten by `npm run bench`; each run appends a dated section.\n');
  appendFileSync(out, section);
}
