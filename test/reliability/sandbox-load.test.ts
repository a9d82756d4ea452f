import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { mintKey, spinUp } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/**
 * Sandbox containment under load: 10 hostile Python runs sent at once through the API (network,
 * host files and the data dir, a fork bomb, a memory hog, an infinite loop, writes outside /tmp, a
 * /tmp filler, host processes, the environment, an output flood), each by its own agent, while another
 * caller keeps using the server. Every run must be contained (its output and exit code say so), the
 * other caller must be served throughout, and nothing of the host may show in any run's output.
 */
const MARKER = `hostile${process.pid}`;
/** The largest time limit a run may ask for: runs meant to end by themselves only reach it if they hang. */
const HANG_MS = 30_000;

const server = useServer();

interface Hostile {
  name: string;
  code: string;
  timeout_ms: number;
  /** What a contained run looks like. */
  contained(run: { exit_code: number; stdout: string; stderr: string; stdout_truncated: boolean }): boolean;
}

function hostiles(dataDir: string, port: number): Hostile[] {
  const tryEach = (paths: string[], action: string) =>
    [
      `for p in ${JSON.stringify(paths)}:`,
      '    try:',
      `        ${action}; print("ESCAPED", p)`,
      '    except Exception as e:',
      '        print("denied", type(e).__name__)',
    ].join('\n');
  return [
    {
      name: 'network: internet, the host loopback (the server port) and DNS',
      code: [
        'import socket',
        `for host, port in [("1.1.1.1", 80), ("127.0.0.1", ${port}), ("localhost", ${port})]:`,
        '    try:',
        '        socket.create_connection((host, port), timeout=1); print("ESCAPED", host)',
        '    except Exception as e:',
        '        print("denied", type(e).__name__)',
        'try:',
        '    socket.getaddrinfo("example.org", 80); print("ESCAPED dns")',
        'except Exception as e:',
        '    print("denied", type(e).__name__)',
      ].join('\n'),
      timeout_ms: HANG_MS,
      contained: (r) => r.exit_code === 0 && !r.stdout.includes('ESCAPED') && (r.stdout.match(/denied/g) ?? []).length === 4,
    },
    {
      name: 'host files: /etc/shadow, /etc/passwd, /root, the data dir and its key file, the project',
      code:
        tryEach(
          ['/etc/shadow', '/etc/passwd', '/root/.bashrc', path.join(dataDir, 'docs', 'keys.jsonl'), path.join(process.cwd(), 'package.json')],
          'open(p).read()',
        ) + `\nimport os\nprint("exists", os.path.exists(${JSON.stringify(dataDir)}))`,
      timeout_ms: HANG_MS,
      contained: (r) => r.exit_code === 0 && !r.stdout.includes('ESCAPED') && r.stdout.includes('exists False'),
    },
    {
      name: 'fork bomb',
      code: [
        'import ctypes, os',
        `ctypes.CDLL(None).prctl(15, b"${MARKER}")`,
        'while True:',
        '    try:',
        '        os.fork()',
        '    except OSError:',
        '        pass',
      ].join('\n'),
      timeout_ms: 1500,
      contained: (r) => r.exit_code === 124,
    },
    {
      name: 'memory hog',
      code: 'chunks = []\nwhile True:\n    chunks.append(bytearray(32 * 1024 * 1024))',
      timeout_ms: HANG_MS,
      contained: (r) => r.exit_code === 137,
    },
    {
      name: 'infinite loop',
      code: 'while True:\n    pass',
      // Holds the hostile phase open for 10 s, so the other caller's three rounds during it only fail
      // when the server stops answering, not when the machine is slow.
      timeout_ms: 10_000,
      contained: (r) => r.exit_code === 124,
    },
    {
      name: 'writes outside /tmp: the root, /usr, the mounted code, the data dir',
      code: tryEach(['/escape.txt', '/usr/escape.txt', '/run/main.py', path.join(dataDir, 'escape.txt')], 'open(p, "w").write("x")'),
      timeout_ms: HANG_MS,
      contained: (r) => r.exit_code === 0 && !r.stdout.includes('ESCAPED') && (r.stdout.match(/denied/g) ?? []).length === 4,
    },
    {
      name: 'fills /tmp past its size',
      code: [
        'n = 0',
        'try:',
        '    while True:',
        '        with open(f"/tmp/f{n}", "wb") as f:',
        '            f.write(b"x" * (8 * 1024 * 1024))',
        '        n += 1',
        'except OSError as e:',
        '    print("stopped", type(e).__name__, n)',
      ].join('\n'),
      timeout_ms: HANG_MS,
      contained: (r) => r.exit_code === 0 && /^stopped \w+ \d+$/m.test(r.stdout) && Number(r.stdout.trim().split(' ').pop()) <= 8,
    },
    {
      name: 'host processes through /proc',
      code:
        'import os\npids = [p for p in os.listdir("/proc") if p.isdigit()]\nprint("pids", len(pids))\n' +
        'print("init env", open("/proc/1/environ").read().replace("\\0", " "))\n' +
        tryEach([`/proc/${process.pid}/environ`, `/proc/${process.pid}/cmdline`], 'open(p).read()'),
      timeout_ms: HANG_MS,
      // Its own pid namespace: a handful of its own processes (pid 1 is the sandbox's init, with an
      // empty environment), never the server's.
      contained: (r) =>
        r.exit_code === 0 &&
        Number(/pids (\d+)/.exec(r.stdout)?.[1] ?? 99) < 10 &&
        /init env /.test(r.stdout) &&
        !/CORE_|DATABASE/.test(r.stdout) &&
        !r.stdout.includes('ESCAPED'),
    },
    {
      name: 'the environment',
      code: 'import os\nprint(sorted(os.environ.items()))',
      timeout_ms: HANG_MS,
      contained: (r) => r.exit_code === 0 && !/CORE_|DATABASE|KEY|TOKEN|SECRET/.test(r.stdout),
    },
    {
      name: 'output flood',
      code: 'import sys\nfor _ in range(200):\n    sys.stdout.write("y" * 100_000)',
      timeout_ms: HANG_MS,
      contained: (r) => r.exit_code === 0 && r.stdout_truncated && r.stdout.length === 65_536,
    },
  ];
}

describe('sandbox containment under load', () => {
  it('contains 10 hostile runs at once while another caller is served, and nothing leaks', async () => {
    const port = Number(new URL(server.url).port);
    const list = hostiles(server.dataDir, port);
    expect(list).toHaveLength(10);
    const other = await spinUp(server, 'sandbox-load-other');
    const agents = await Promise.all(list.map(() => mintKey(server)));
    const secrets = [other.key, other.machineKey, ...agents.map((a) => a.key)];

    let hostileDone = false;
    const runs = Promise.all(
      list.map((h, i) =>
        server.call('POST', `/api/agent/${agents[i]!.uid}/sandbox/run`, { key: agents[i]!.key, body: { code: h.code, timeout_ms: h.timeout_ms } }),
      ),
    ).finally(() => (hostileDone = true));

    // The other caller: reads and writes back to back while the hostile runs are in flight.
    const served: number[] = [];
    let duringHostile = 0;
    const otherCaller = (async () => {
      for (let i = 0; !hostileDone || i < 5; i++) {
        const write = await server.call('POST', `/api/chain/sandbox-load-other/event`, { key: other.key, body: { type: 'tick', payload: { i } } });
        const read = await server.call('GET', '/api/chain/sandbox-load-other/activity?limit=5', { key: other.key });
        served.push(write.status, read.status);
        if (!hostileDone) duringHostile++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    // A benign run of the other caller, queued behind the hostile ones, still completes.
    const benign = server.call('POST', `/api/agent/${other.uid}/sandbox/run`, { key: other.key, body: { code: 'print(6 * 7)', timeout_ms: HANG_MS } });

    const results = await runs;
    await otherCaller;
    const mine = await benign;

    const escaped: string[] = [];
    for (const [i, res] of results.entries()) {
      const h = list[i]!;
      expect(res.status, `${h.name}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
      if (!h.contained(res.body))
        escaped.push(`${h.name}: exit ${res.body.exit_code} stdout ${String(res.body.stdout).slice(0, 300)} stderr ${String(res.body.stderr).slice(0, 300)}`);
      const text = JSON.stringify(res.body);
      for (const s of secrets) if (text.includes(s)) escaped.push(`${h.name}: output holds a key`);
      if (text.includes(server.dataDir) && !h.code.includes(server.dataDir)) escaped.push(`${h.name}: output names the data dir`);
    }
    if (process.env.SANDBOX_REPORT) {
      console.log(results.map((r, i) => `${list[i]!.name}: exit ${r.body.exit_code} ${JSON.stringify(String(r.body.stdout).slice(0, 160))}`).join('\n'));
      console.log(`other caller: ${served.length} calls, ${duringHostile} rounds during the hostile runs`);
    }
    expect(escaped).toEqual([]);

    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ exit_code: 0, stdout: '42\n' });
    expect(served.every((s) => s === 200)).toBe(true);
    expect(duringHostile).toBeGreaterThanOrEqual(3);

    // Nothing survives and nothing was written on the host.
    // Killed processes leave /proc once the kernel has torn them down, which takes a while on a busy machine:
    // wait for that (the limit only catches a process that really survived).
    const survivors = async (): Promise<string[]> => {
      const found: string[] = [];
      for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
        // `comm` is the second field, in parentheses; a zombie (state Z) is already dead.
        const m = /^\d+ \((.*)\) (\S)/.exec(stat);
        if (m && m[1] === MARKER && m[2] !== 'Z' && m[2] !== 'X') found.push(pid);
      }
      return found;
    };
    await vi.waitFor(async () => expect(await survivors()).toEqual([]), { timeout: 60_000, interval: 50 });
    for (const p of ['/escape.txt', '/usr/escape.txt', path.join(server.dataDir, 'escape.txt')]) {
      expect(
        await stat(p).then(
          () => 'exists',
          () => 'absent',
        ),
        p,
      ).toBe('absent');
    }
    // Every hostile run was recorded against its own agent's quota.
    for (const a of agents) {
      const quota = await server.call('GET', `/api/agent/${a.uid}/sandbox/quota`, { key: a.key });
      expect(quota.body.runs_used).toBe(1);
    }
  });
});
