import { access, chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBwrapRunner, statusOf } from '../../../src/domain/sandbox/sandbox-runner.js';
import { DEFAULT_LIMITS } from '../../../src/domain/sandbox/bwrap-command.js';
import { utf8Boundary } from '../../../src/domain/sandbox/byte-capture.js';

const runner = createBwrapRunner();
let hostDir: string;

beforeAll(async () => {
  hostDir = await mkdtemp(path.join(os.tmpdir(), 'core-sandbox-host-'));
  await writeFile(path.join(hostDir, 'secret.txt'), 'host secret');
});
afterAll(async () => {
  await rm(hostDir, { recursive: true, force: true });
});

/**
 * The time limit of a run that is meant to end by itself or by another limit: long enough that only a
 * hang reaches it, however slowly a busy machine starts bwrap and Python or grows an allocation.
 */
const HANG_MS = 60_000;
const run = (code: string, timeoutMs = HANG_MS, stdin?: string) => runner.run({ code, timeoutMs, ...(stdin !== undefined ? { stdin } : {}) });
/** Captured before any test fakes the timers: polling /proc must go on in real time. */
const realSetTimeout = globalThis.setTimeout;
const realSleep = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));

/** Processes named `name` that have not ended (a zombie holds nothing and is already dead). */
async function liveNamed(name: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // `comm` is the second field, in parentheses.
    const m = /^\d+ \((.*)\) (\S)/.exec(stat);
    if (m && m[1] === name && m[2] !== 'Z' && m[2] !== 'X') found.push(pid);
  }
  return found;
}

/** Polls in real time until `ok` holds; the limit only catches a hang. */
async function until(ok: () => Promise<boolean>, what: string, limitMs = 60_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!(await ok())) {
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${limitMs} ms`);
    await realSleep(25);
  }
}

afterEach(() => {
  vi.useRealTimers();
});

// Limits are hang-catchers: a sandbox run takes ~15 ms on an idle machine and seconds on a loaded one.
describe('the Python sandbox', () => {
  it('runs code with stdin and reports its output and exit status', async () => {
    const ok = await run('import sys\nprint(sys.stdin.read().upper())', HANG_MS, 'hello');
    expect(ok).toMatchObject({ exit_code: 0, reason: 'exit', stdout: 'HELLO\n', stderr: '' });
    const failed = await run('import sys\nprint("bad", file=sys.stderr)\nsys.exit(3)');
    expect(failed).toMatchObject({ exit_code: 3, stderr: 'bad\n' });
    expect(await run('exit(4)')).toMatchObject({ exit_code: 4, stderr: '' });
    expect(await run('import json, hashlib, math\nprint(__name__, json.dumps([math.pi > 3]))')).toMatchObject({ stdout: '__main__ [true]\n' });
    const raised = await run('1/0');
    expect(raised.exit_code).toBe(1);
    expect(raised.stderr).toContain('ZeroDivisionError');
    expect(raised.stderr).toContain('/run/main.py');
    expect(raised.stderr).not.toContain('<string>');
  });

  it('cannot open a network socket', async () => {
    const res = await run('import socket\nsocket.create_connection(("1.1.1.1", 80), timeout=1)');
    expect(res.exit_code).toBe(1);
    expect(res.stderr).toMatch(/Network is unreachable|OSError/);
  });

  it('cannot read /etc/shadow, the host temp dir or the server data dir', async () => {
    const res = await run(
      [
        'import os',
        'for p in ["/etc/shadow", "/etc/passwd", ' +
          JSON.stringify(path.join(hostDir, 'secret.txt')) +
          ', ' +
          JSON.stringify(process.cwd() + '/package.json') +
          ']:',
        '    try:',
        '        open(p).read(); print("READ", p)',
        '    except OSError as e:',
        '        print("denied", type(e).__name__)',
        'print(sorted(os.listdir("/")))',
      ].join('\n'),
    );
    expect(res.exit_code).toBe(0);
    expect(res.stdout).not.toContain('READ');
    expect(res.stdout).toContain("['bin', 'dev', 'lib', 'lib64', 'proc', 'run', 'sbin', 'tmp', 'usr']");
  });

  it('cannot write outside its private /tmp, which is gone after the run', async () => {
    const res = await run(
      [
        'for p in ["/escape.txt", "/usr/escape.txt", "/run/main.py"]:',
        '    try:',
        '        open(p, "w").write("x"); print("WROTE", p)',
        '    except OSError as e:',
        '        print("denied", e.errno)',
        'open("/tmp/inside.txt", "w").write("ok"); print(open("/tmp/inside.txt").read())',
      ].join('\n'),
    );
    expect(res.exit_code).toBe(0);
    expect(res.stdout).not.toContain('WROTE');
    expect(res.stdout.trim().endsWith('ok')).toBe(true);
    expect(await readdir('/')).not.toContain('escape.txt');
    const again = await run('import os\nprint(os.listdir("/tmp"))');
    expect(again.stdout).toBe('[]\n');
  });

  it('stops a fork bomb at the process limit and leaves no process behind', async () => {
    const marker = `bomb${process.pid}`;
    const res = await run(
      [
        'import ctypes, os',
        // Names every process of the bomb, so the host can look for survivors by /proc/<pid>/comm.
        `ctypes.CDLL(None).prctl(15, b"${marker}")`,
        'n = 0',
        'while True:',
        '    try:',
        '        os.fork(); n += 1',
        '    except OSError:',
        '        pass',
      ].join('\n'),
      1500,
    );
    expect(res.exit_code).toBe(124);
    expect(res.reason).toBe('timeout');
    // SIGKILLed processes leave /proc once the kernel has torn them down, which takes a moment on a busy
    // machine: wait for that (the limit only catches a process that really survived).
    await vi.waitFor(async () => expect(await liveNamed(marker)).toEqual([]), { timeout: 60_000, interval: 50 });
  });

  it('kills a growing allocation at the memory limit with 137', async () => {
    const res = await run('chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))');
    expect(res.exit_code).toBe(137);
    expect(res.reason).toBe('memory');
  });

  it('kills a 2 GB allocation with 137', async () => {
    const res = await run('x = bytearray(2 * 1024 ** 3)\nprint("allocated")');
    expect(res.exit_code).toBe(137);
    expect(res.reason).toBe('memory');
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('memory limit');
  });

  it('kills a run whose processes together pass the run budget, each under the per-process limit, with 137 and no survivor', async () => {
    // 192 MiB for the whole run; each process may still map 512 MiB.
    const small = createBwrapRunner({ limits: { ...DEFAULT_LIMITS, runMemoryBytes: 192 * 1024 * 1024 } });
    const marker = `herd${process.pid}`;
    const herd = [
      'import ctypes, os, time',
      `ctypes.CDLL(None).prctl(15, b"${marker}")`,
      'for _ in range(4):',
      '    if os.fork() == 0:',
      // 64 MiB written (so resident) per child: each far under 512 MiB, together over 192 MiB.
      '        held = b"\\x01" * (64 * 1024 * 1024)',
      '        time.sleep(60)',
      '        os._exit(0)',
      'for _ in range(4):',
      '    os.wait()',
      'print("survived")',
    ].join('\n');
    const res = await small.run({ code: herd, timeoutMs: HANG_MS });
    expect(res).toMatchObject({ exit_code: 137, reason: 'memory', stdout: '' });
    expect(res.stderr).toContain('together held more than 192 MiB');
    // SIGKILLed processes leave /proc once the kernel has torn them down, which takes a moment on a busy
    // machine: wait for that (the limit only catches a process that really survived).
    await vi.waitFor(async () => expect(await liveNamed(marker)).toEqual([]), { timeout: 60_000, interval: 50 });
    // One process holding less than the budget runs to its end.
    const one = await small.run({ code: 'held = b"\\x01" * (64 * 1024 * 1024)\nprint(len(held))', timeoutMs: HANG_MS });
    expect(one).toMatchObject({ exit_code: 0, stdout: `${64 * 1024 * 1024}\n` });
  });

  it('kills code that sleeps past its time limit with 124, keeping what it printed before', async () => {
    await runner.ready();
    // The limit runs on a fake clock that reaches it only once the code has printed and is asleep (it
    // names itself then), so a slow start cannot be mistaken for the sleep.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const marker = `nap${process.pid}`;
    const pending = run(
      ['import ctypes, time', 'print("start", flush=True)', `ctypes.CDLL(None).prctl(15, b"${marker}")`, 'time.sleep(600)', 'print("late")'].join('\n'),
      400,
    );
    await until(async () => (await liveNamed(marker)).length > 0, 'the code reaching its sleep');
    vi.advanceTimersByTime(400);
    const res = await pending;
    expect(res.exit_code).toBe(124);
    expect(res.reason).toBe('timeout');
    expect(res.stdout).toBe('start\n');
    expect(res.stderr).toContain('time limit of 400 ms');
    // Killed at the limit, not at the end of the sleep.
    expect(res.duration_ms).toBeLessThan(600_000);
  });

  it('reports a run that ended for memory as 137 even when the time limit passes while bwrap reports it', async () => {
    // A stand-in for bwrap whose code has already ended (no process below it) and which reports the
    // end (128 + SIGKILL, as bwrap does for code its MemoryError hook killed) only when the test lets it,
    // after the time limit has passed.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'core-fake-bwrap-'));
    const gate = path.join(dir, 'gate');
    const started = path.join(dir, 'started');
    const fake = path.join(dir, 'bwrap');
    // The runner starts bwrap as an unprivileged uid when the tests run as root.
    await chmod(dir, 0o777);
    await writeFile(
      fake,
      [
        '#!/usr/bin/python3',
        'import os, sys',
        'code = os.fdopen(3).read()',
        'if code == "pass": sys.exit(0)',
        `open(${JSON.stringify(started)}, "w").close()`,
        `while not os.path.exists(${JSON.stringify(gate)}): __import__("time").sleep(0.01)`,
        'sys.exit(137)',
      ].join('\n'),
      { mode: 0o755 },
    );
    try {
      const reporting = createBwrapRunner({ bwrapPath: fake });
      await reporting.ready();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
      const pending = reporting.run({ code: 'x = bytearray(2 * 1024 ** 3)', timeoutMs: 1000 });
      await until(
        () =>
          access(started).then(
            () => true,
            () => false,
          ),
        'the stand-in starting',
      );
      vi.advanceTimersByTime(1000);
      await writeFile(gate, '');
      expect(await pending).toMatchObject({ exit_code: 137, reason: 'memory' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('truncates a 1 MB print to 64 KB and flags it', async () => {
    const res = await run('import sys\nsys.stdout.write("x" * 1_000_000)\nsys.stderr.write("é" * 40_000)');
    expect(res.exit_code).toBe(0);
    expect(res.stdout.length).toBe(65_536);
    expect(res.stdout_truncated).toBe(true);
    expect(Buffer.byteLength(res.stderr)).toBe(65_536);
    expect(res.stderr_truncated).toBe(true);
    expect(res.stderr).not.toContain('\ufffd');
  });

  it('refuses to run when bwrap is missing, naming the package to install', async () => {
    const missing = createBwrapRunner({ bwrapPath: '/nonexistent/bwrap' });
    await expect(missing.run({ code: 'print(1)', timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'NOT_IMPLEMENTED',
      message: expect.stringContaining('bubblewrap'),
    });
  });
});

describe('sandbox exit status mapping', () => {
  it('reads a kill as the reason the runner recorded, and a signalled child as 128 + N', () => {
    expect(statusOf(null, 'SIGKILL', 'timeout')).toEqual({ exit_code: 124, reason: 'timeout' });
    expect(statusOf(152, null, undefined)).toEqual({ exit_code: 124, reason: 'timeout' });
    expect(statusOf(137, null, undefined)).toEqual({ exit_code: 137, reason: 'memory' });
    // The time limit kills bwrap itself (a signal); a 137 code is the sandbox's own memory kill, reported late.
    expect(statusOf(137, null, 'timeout')).toEqual({ exit_code: 137, reason: 'memory' });
    expect(statusOf(null, 'SIGKILL', 'memory')).toEqual({ exit_code: 137, reason: 'memory' });
    expect(statusOf(2, null, undefined)).toEqual({ exit_code: 2, reason: 'exit' });
    expect(statusOf(null, 'SIGSEGV', undefined)).toEqual({ exit_code: 139, reason: 'exit' });
  });

  it('cuts captured bytes on a UTF-8 character boundary', () => {
    const e = Buffer.from('aé');
    expect(utf8Boundary(e)).toBe(3);
    expect(utf8Boundary(e.subarray(0, 2))).toBe(1);
    expect(utf8Boundary(Buffer.from('€').subarray(0, 2))).toBe(0);
  });
});
