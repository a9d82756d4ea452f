// The second baseline: bare `node:http` answering every request with the same JSON as
// GET /api/constants/{key}. Prints its URL on stdout once listening.
import { createServer } from 'node:http';

const body = Buffer.from(process.env.BENCH_BODY ?? '{}');
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
