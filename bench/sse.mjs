// SSE fan-out: `subscribers` HTTP connections opened from the bench process on one machine's
// `GET /api/chain/{slug}/explore/sse`, parsed with eventsource-parser; then events are appended one at a
// time and each subscriber's delivery latency is measured from just before the append's POST to the
// moment that row (matched by seq) is parsed on the connection.
import http from 'node:http';
import { createParser } from 'eventsource-parser';
import { percentile } from './lib.mjs';

function subscribe(url, key, onRow) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE ${res.statusCode}`));
      const parser = createParser({
        onEvent(e) {
          try {
            onRow(JSON.parse(e.data));
          } catch {
            // Not a JSON row (a skipped-rows notice is JSON too, without a seq).
          }
        },
      });
      res.setEncoding('utf8');
      res.on('data', (chunk) => parser.feed(chunk));
      resolve(req);
    });
    req.on('error', reject);
  });
}

export async function sseFanOut(url, key, slug, { subscribers = 1000, events = 30 } = {}) {
  const received = Array.from({ length: subscribers }, () => new Map());
  const conns = [];
  for (let i = 0; i < subscribers; i += 50) {
    conns.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, subscribers - i) }, (_, j) =>
          subscribe(`${url}/api/chain/${slug}/explore/sse`, key, (row) => {
            if (typeof row.seq === 'number') received[i + j].set(row.seq, performance.now());
          }),
        ),
      )),
    );
  }
  const latencies = [];
  let missing = 0;
  try {
    await new Promise((r) => setTimeout(r, 200));
    for (let e = 0; e < events; e++) {
      const t0 = performance.now();
      const res = await fetch(`${url}/api/chain/${slug}/event`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ type: 'sse-bench', payload: { e } }),
      });
      const { seq } = await res.json();
      const deadline = performance.now() + 3000;
      while (performance.now() < deadline && received.some((m) => !m.has(seq))) await new Promise((r) => setTimeout(r, 2));
      for (const m of received) {
        if (m.has(seq)) latencies.push(m.get(seq) - t0);
        else missing++;
      }
    }
  } finally {
    for (const c of conns) c.destroy();
  }
  return {
    subscribers,
    events,
    deliveries: latencies.length,
    missing,
    p50_ms: +percentile(latencies, 50).toFixed(1),
    p99_ms: +percentile(latencies, 99).toFixed(1),
    max_ms: +Math.max(...latencies).toFixed(1),
  };
}
