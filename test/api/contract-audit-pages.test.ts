import { describe, expect, it } from 'vitest';
import type { LogQuery, LogRow } from '../../src/storage/port.js';
import { createMachine, mintKey } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

/** Fired only by fire-now: its schedule is far away. */
const manual = {
  name: 'manual',
  states: { running: { initial: true } },
  transitions: [{ from: 'running', to: 'running', operator: 'KO42', trigger: { kind: 'every', every_ticks: 1_000_000 } }],
};

describe('contract audit pages', () => {
  it('reads about one page of transition rows per request, however long the history (the soak p99 drift)', async () => {
    const owner = await mintKey(server);
    const slug = `audit-pages-${Date.now().toString(36)}`;
    await createMachine(server, owner.key, { slug });
    const created = await server.call('POST', `/api/chain/${slug}/contracts`, { key: owner.key, body: { definition: manual } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = (created.body as { contract: { id: string } }).contract.id;
    for (let i = 0; i < 40; i++) {
      const fired = await server.call('POST', `/api/chain/${slug}/contracts/${id}/fire-now`, { key: owner.key, body: {} });
      expect(fired.status, JSON.stringify(fired.body)).toBe(200);
    }

    // Count the transition rows the store hands back while pages of 5 are read.
    const logs = server.core.store.logs;
    const read = logs.read.bind(logs);
    let rowsRead = 0;
    logs.read = async <R extends LogRow>(stream: string, query?: LogQuery) => {
      const rows = await read<R>(stream, query);
      if (stream.endsWith('/transitions')) rowsRead += rows.length;
      return rows;
    };
    try {
      const seen: number[] = []; // each row's n, from its id `<contract>:<n>`
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await server.call('GET', `/api/chain/${slug}/contracts/${id}/audit?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          key: owner.key,
        });
        expect(res.status).toBe(200);
        const body = res.body as { transitions: Array<{ id: string }>; next_cursor: string | null };
        seen.push(...body.transitions.map((t) => Number(t.id.split(':').at(-1))));
        cursor = body.next_cursor;
        pages++;
      } while (cursor !== null);
      expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(pages).toBe(8);
      // A page of 5 reads 6 rows (one to know there is a next page): 8 pages, at most 48 rows, not 40 per page.
      expect(rowsRead).toBeLessThanOrEqual(8 * 6);
    } finally {
      logs.read = read;
    }
  });
});
