import type { Tally } from './load.js';

interface FaultRow {
  name: string;
  requests: number;
  ok: number;
  s503: number;
  s500: number;
  noAnswer: number;
  counts: Record<string, number>;
}

/** What the chaos suite did and found, printed once at the end (faults, requests, answers, fires, duplicates). */
export const summary = {
  faults: [] as string[],
  terminated: 0,
  requests: 0,
  statuses: '',
  fires: 0,
  duplicates: 0,
  missing: 0,
  streamGaps: 0,
  rows: [] as FaultRow[],
  extra: [] as string[],
  record(name: string, window: Tally, counts: Record<string, number>) {
    this.rows.push({ name, requests: window.total, ok: window.ok, s503: window.count(503), s500: window.count(500), noAnswer: window.count(0), counts });
  },
  print() {
    const lines = [
      '── chaos summary ──',
      `faults injected: ${this.faults.length} (${this.faults.join(', ')}); backends terminated: ${this.terminated}`,
      `requests: ${this.requests} (${this.statuses})`,
      `fire rows: ${this.fires}; duplicate fires: ${this.duplicates}; missed due ticks: ${this.missing}; stream gaps: ${this.streamGaps}`,
      ...this.rows.map(
        (r) =>
          `  ${r.name}: ${r.requests} requests, 2xx ${r.ok}, 503 ${r.s503}, 500 ${r.s500}, no answer ${r.noAnswer}; ` +
          Object.entries(r.counts)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
      ),
      ...this.extra,
    ];
    console.log(lines.join('\n'));
  },
};
