// Cost of a store lock on PostgreSQL (locks moved from a session connection into the writing
// transaction). Built store from `dist/` of the given root (default: this checkout), a schema of its own:
// - serial: one holder after another, each appending one row under its lock;
// - fanout: 100 keys claimed at once with tryRun (a tick with 100 contracts due), each appending a row.
//   DATABASE_URL=... node bench/pg-locks.mjs [root] [rounds]
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const root = path.resolve(process.argv[2] ?? '.');
const rounds = Number(process.argv[3] ?? 5);
const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL');
const { createPostgresStore } = await import(pathToFileURL(path.join(root, 'dist/src/storage/postgres/postgres.store.js')).href);
const schema = `bench_${randomBytes(4).toString('hex')}`;
const store = createPostgresStore({ connectionString: url, schema });
await store.open();
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const serial = [];
  const fanout = [];
  for (let r = 0; r < rounds; r++) {
    let start = process.hrtime.bigint();
    for (let i = 0; i < 200; i++) await store.locks.run(`s${i % 10}`, () => store.logs.append(`serial-${i % 10}`, () => ({ tick: i, type: 'x' })));
    serial.push(ms(start) / 200);
    start = process.hrtime.bigint();
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) => store.locks.tryRun(`f${i}`, () => store.logs.append(`fan-${i % 20}`, () => ({ tick: r, type: 'x' })))),
    );
    if (outcomes.some((o) => !o.ran)) throw new Error('a free key was refused');
    fanout.push(ms(start));
  }
  console.log(JSON.stringify({ root, serial_ms_per_lock: +median(serial).toFixed(3), fanout_100_ms: +median(fanout).toFixed(1) }));
} finally {
  await store.close();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`DROP SCHEMA ${schema} CASCADE`);
  await c.end();
}
