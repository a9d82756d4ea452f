import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What the fixture answers at one path. Left out: 200, `application/json`, `json` serialised. */
export interface FixtureRoute {
  status?: number;
  headers?: Record<string, string>;
  /** The body as JSON; ignored when `body` is given. */
  json?: unknown;
  body?: string | Buffer;
  /** Send `bytes` bytes of body in 16 KiB chunks without a content-length (a body larger than announced, or unannounced). */
  stream?: { bytes: number };
  /** Send the headers and one byte, then one byte every `everyMs` until the fixture closes: emits `dripping` after the first. */
  drip?: { everyMs: number };
}

/** One request the fixture received: what a test checks about SNI and Host. */
export interface FixtureRequest {
  path: string;
  host: string | undefined;
  servername: string | false | null | undefined;
  remoteAddress: string | undefined;
}

/** The names and addresses the fixture's certificate is valid for. */
export const FIXTURE_NAMES = ['localhost', 'client.test', 'other.client.test'];

export interface HttpsFixture {
  port: number;
  /** The CA that signed the fixture's certificate, PEM, and the file holding it (for CORE_OAUTH_CIMD_TEST_TRUST). */
  caPem: string;
  caFile: string;
  /** `https://<host>:<port><path>`; host `localhost` unless given. */
  url(pathname: string, host?: string): string;
  route(pathname: string, route: FixtureRoute): void;
  /** Serves a valid metadata document at `pathname` whose client_id is `url(pathname, host)`, with `fields` over it. */
  document(pathname: string, fields?: Record<string, unknown>, options?: { host?: string; headers?: Record<string, string> }): string;
  requests: FixtureRequest[];
  events: EventEmitter;
  close(): Promise<void>;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new Error('the HTTPS fixture needs the openssl command (Debian package "openssl"): apt-get install -y openssl', { cause: err });
    throw err;
  }
}

/** A throwaway CA and a leaf certificate for FIXTURE_NAMES and the loopback addresses, made with openssl in `dir`. */
async function makeCertificates(dir: string): Promise<{ ca: string; key: string; cert: string }> {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=core-server test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
    ],
    dir,
  );
  await openssl(['req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost'], dir);
  const san = [...FIXTURE_NAMES.map((n) => `DNS:${n}`), 'IP:127.0.0.1', 'IP:::1'].join(',');
  await writeFile(path.join(dir, 'leaf.ext'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  await openssl(
    ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '2', '-extfile', 'leaf.ext'],
    dir,
  );
  const [ca, key, cert] = await Promise.all(['ca.pem', 'leaf.key', 'leaf.pem'].map((f) => readFile(path.join(dir, f), 'utf8')));
  return { ca: ca!, key: key!, cert: cert! };
}

/**
 * A local HTTPS server with a certificate made at test time, serving JSON documents at given paths and
 * misbehaving on request (redirects, huge bodies, a slow drip, wrong content types). Listens on 127.0.0.1.
 */
export async function startHttpsFixture(): Promise<HttpsFixture> {
  const dir = await mkdtemp(path.join(tmpdir(), 'https-fixture-'));
  const { ca, key, cert } = await makeCertificates(dir);
  const routes = new Map<string, FixtureRoute>();
  const requests: FixtureRequest[] = [];
  const events = new EventEmitter();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const server: Server = createServer({ key, cert }, (req, res) => {
    const pathname = req.url ?? '/';
    const socket = req.socket as TLSSocket;
    requests.push({ path: pathname, host: req.headers.host, servername: socket.servername, remoteAddress: socket.remoteAddress });
    const route = routes.get(pathname);
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const headers = { 'content-type': 'application/json', ...route.headers };
    res.writeHead(route.status ?? 200, headers);
    if (route.drip) {
      res.write('{');
      events.emit('dripping', pathname);
      const timer = setInterval(() => res.write(' '), route.drip.everyMs);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
      return;
    }
    if (route.stream) {
      let left = route.stream.bytes;
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = () => {
        while (left > 0) {
          const piece = chunk.subarray(0, Math.min(chunk.length, left));
          left -= piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (left = 0));
      pump();
      return;
    }
    res.end(route.body ?? JSON.stringify(route.json ?? {}));
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that gives up mid-handshake or mid-body is expected here; it is not a fixture failure.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const caFile = path.join(dir, 'ca.pem');
  const url = (pathname: string, host = 'localhost') => `https://${host}:${port}${pathname}`;

  return {
    port,
    caPem: ca,
    caFile,
    url,
    route: (pathname, route) => void routes.set(pathname, route),
    document(pathname, fields = {}, options = {}) {
      const clientId = url(pathname, options.host);
      routes.set(pathname, {
        headers: options.headers,
        json: { client_id: clientId, client_name: 'Fixture Client', redirect_uris: ['http://127.0.0.1:33418/callback'], ...fields },
      });
      return clientId;
    },
    requests,
    events,
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
