/** Duration buckets in seconds, Prometheus style. */
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
export function createMetrics() {
    const requests = new Map();
    const durations = new Map();
    return {
        observe(op, status, ms, surface) {
            const key = `op="${op}",status="${status}",surface="${surface}"`;
            requests.set(key, (requests.get(key) ?? 0) + 1);
            let series = durations.get(op);
            if (!series)
                durations.set(op, (series = { count: 0, sum: 0, buckets: BUCKETS.map(() => 0) }));
            const s = ms / 1000;
            series.count += 1;
            series.sum += s;
            for (let i = 0; i < BUCKETS.length; i++)
                if (s <= BUCKETS[i])
                    series.buckets[i] += 1;
        },
        render(gauges) {
            const lines = [];
            lines.push('# HELP core_requests_total Operations handled, by operation, status and surface.');
            lines.push('# TYPE core_requests_total counter');
            for (const [key, n] of requests)
                lines.push(`core_requests_total{${key}} ${n}`);
            lines.push('# HELP core_request_duration_seconds Time spent in the pipeline per operation.');
            lines.push('# TYPE core_request_duration_seconds histogram');
            for (const [op, s] of durations) {
                BUCKETS.forEach((b, i) => lines.push(`core_request_duration_seconds_bucket{op="${op}",le="${b}"} ${s.buckets[i]}`));
                lines.push(`core_request_duration_seconds_bucket{op="${op}",le="+Inf"} ${s.count}`);
                lines.push(`core_request_duration_seconds_sum{op="${op}"} ${s.sum}`);
                lines.push(`core_request_duration_seconds_count{op="${op}"} ${s.count}`);
            }
            for (const [name, value] of Object.entries(gauges)) {
                lines.push(`# TYPE ${name} gauge`);
                lines.push(`${name} ${value}`);
            }
            return `${lines.join('\n')}\n`;
        },
    };
}
//# sourceMappingURL=metrics.js.map