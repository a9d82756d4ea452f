import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** One look at the server process from outside: resident memory and open descriptors by kind. */
export interface ProbeSample {
  /** Milliseconds since the load started. */
  at: number;
  rssMb: number;
  fds: number;
  sockets: number;
  /** Descriptors on log files (`<dataDir>/logs/`): held by the store's bounded pool, so they may grow up to its bound. */
  logFiles: number;
  /** Everything else: the data directory's other files (lock, journals), pipes, the event loop's own. Not pooled. */
  other: number;
}

export async function probe(pid: number, dataDir: string, at: number): Promise<ProbeSample> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  let sockets = 0;
  let logFiles = 0;
  const logsDir = `${join(dataDir, 'logs')}/`;
  let other = 0;
  const fds = await readdir(`/proc/${pid}/fd`);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target.startsWith('socket:')) sockets++;
    else if (target.startsWith(logsDir)) logFiles++;
    else other++;
  }
  return { at, rssMb: rssKb / 1024, fds: fds.length, sockets, logFiles, other };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** Least-squares slope of y over x. */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
