// The baseline: a bare Express 5 app whose single middleware returns the same JSON as
// GET /api/constants/{key}. Prints its URL on stdout once listening.
import express from 'express';

const body = JSON.parse(process.env.BENCH_BODY ?? '{}');
const app = express();
app.use((req, res) => {
  res.json(body);
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
