/**
 * Request counts and durations per operation, status and surface, counted in plain maps and written
 * into the Prometheus exposition at scrape time.
 *
 * Why not prom-client's Counter and Histogram, which every other metric uses: their labelled `inc` and
 * `observe` validate the label object and build a fresh hash string on every call, ~0.3 µs each. Every
 * pipeline call records both (a `core_http` call twice), and a cheap MCP call costs ~4 µs in the
 * pipeline, so the two were an eighth of it. Here a call is three map lookups on strings that are
 * already interned (operation ids and surface names are constants) and a bucket search.
 */
export interface RequestMetrics {
  observe(op: string, status: number, ms: number, surface: string): void;
  /** Both families in the text exposition format 0.0.4, ending with a newline ('' before any call). */
  render(): string;
}

interface Series {
  /** Calls by HTTP status. */
  statuses: Map<number, number>;
  /** Calls per bucket, not cumulative; the last slot is everything above the largest bound. */
  buckets: Float64Array;
  sumSeconds: number;
  count: number;
}

export function createRequestMetrics(opts: {
  countName: string;
  countHelp: string;
  durationName: string;
  durationHelp: string;
  /** Upper bounds in seconds, ascending. */
  buckets: readonly number[];
}): RequestMetrics {
  const bounds = [...opts.buckets];
  for (let i = 1; i < bounds.length; i++) if (!(bounds[i]! > bounds[i - 1]!)) throw new Error('bucket bounds must ascend');
  /** op -> surface -> series. */
  const byOp = new Map<string, Map<string, Series>>();

  function seriesOf(op: string, surface: string): Series {
    let bySurface = byOp.get(op);
    if (!bySurface) byOp.set(op, (bySurface = new Map()));
    let series = bySurface.get(surface);
    if (!series) bySurface.set(surface, (series = { statuses: new Map(), buckets: new Float64Array(bounds.length + 1), sumSeconds: 0, count: 0 }));
    return series;
  }

  return {
    observe(op, status, ms, surface) {
      const series = seriesOf(op, surface);
      series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
      const seconds = ms / 1000;
      let b = 0;
      while (b < bounds.length && seconds > bounds[b]!) b++;
      series.buckets[b]! += 1;
      series.sumSeconds += seconds;
      series.count += 1;
    },

    render() {
      if (byOp.size === 0) return '';
      const counts = [`# HELP ${opts.countName} ${opts.countHelp}`, `# TYPE ${opts.countName} counter`];
      const durations = [`# HELP ${opts.durationName} ${opts.durationHelp}`, `# TYPE ${opts.durationName} histogram`];
      for (const [op, bySurface] of byOp) {
        for (const [surface, series] of bySurface) {
          const opLabel = `op="${escapeLabel(op)}"`;
          const surfaceLabel = `surface="${escapeLabel(surface)}"`;
          const labels = `${opLabel},${surfaceLabel}`;
          for (const [status, n] of series.statuses) counts.push(`${opts.countName}{${opLabel},status="${status}",${surfaceLabel}} ${n}`);
          let cumulative = 0;
          for (let i = 0; i <= bounds.length; i++) {
            cumulative += series.buckets[i]!;
            const le = i < bounds.length ? String(bounds[i]) : '+Inf';
            durations.push(`${opts.durationName}_bucket{le="${le}",${labels}} ${cumulative}`);
          }
          durations.push(`${opts.durationName}_sum{${labels}} ${series.sumSeconds}`);
          durations.push(`${opts.durationName}_count{${labels}} ${series.count}`);
        }
      }
      return `${counts.join('\n')}\n\n${durations.join('\n')}\n`;
    },
  };
}

/** Label values escape backslash, double quote and newline (the exposition format's only escapes). */
function escapeLabel(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}
