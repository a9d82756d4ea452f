import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { CoreError } from '../../errors.js';
import { ByteCapture, utf8Boundary } from './byte-capture.js';
import { bwrapArgs, DEFAULT_LIMITS, PRLIMIT, PYTHON, SANDBOX_UID, type SandboxLimits } from './bwrap-command.js';
import { canWatchTrees, runsBeyondLauncher, watchTreeMemory } from './tree-memory.js';

export interface RunRequest {
  code: string;
  stdin?: string;
  /** Wall-time limit; the run is killed and reports 124 beyond it. */
  timeoutMs: number;
}

/** Why a run ended: its own exit, a kill by the time limit, or a kill for memory. */
export type EndReason = 'exit' | 'timeout' | 'memory';

export interface RunOutcome {
  exit_code: number;
  reason: EndReason;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  /** Wall time from spawn to the last byte of output, measured on the monotonic clock. */
  duration_ms: number;
}

export interface SandboxRunner {
  /** Resolves when the sandbox can run code; throws a CoreError naming what to install otherwise. */
  ready(): Promise<void>;
  run(request: RunRequest): Promise<RunOutcome>;
}

export interface BwrapRunnerOptions {
  bwrapPath?: string;
  limits?: SandboxLimits;
  /** Per-stream cap on captured output, bytes. */
  outputCap?: number;
  /** Runs at once; the rest wait their turn (the wait is not charged). */
  maxConcurrent?: number;
}

export const OUTPUT_CAP = 64 * 1024;
const SIGXCPU_STATUS = 128 + 24;
const SIGKILL_STATUS = 128 + 9;
/** How long to wait for the pipes to close after a kill before giving up on them. */
const DRAIN_GRACE_MS = 2000;

/**
 * Runs Python 3 under bubblewrap (see `bwrapArgs`). It never runs code unsandboxed: when bwrap or the
 * interpreter is missing, or bwrap cannot create its namespaces here, `ready` and `run` refuse with a
 * NOT_IMPLEMENTED error that says what to install. When the server runs as root, bwrap is started as
 * an unprivileged uid: the kernel exempts root from RLIMIT_NPROC, which would make the process limit void.
 */
export function createBwrapRunner(options: BwrapRunnerOptions = {}): SandboxRunner {
  const bwrap = options.bwrapPath ?? '/usr/bin/bwrap';
  const limits = options.limits ?? DEFAULT_LIMITS;
  const cap = options.outputCap ?? OUTPUT_CAP;
  const slots = createSemaphore(options.maxConcurrent ?? 2);
  let readiness: Promise<void> | undefined;

  async function probe(): Promise<void> {
    for (const [path, pkg] of [
      [bwrap, 'bubblewrap'],
      [PRLIMIT, 'util-linux'],
      [PYTHON, 'python3'],
    ] as const) {
      const found = await access(path, constants.X_OK).then(
        () => true,
        () => false,
      );
      if (!found) throw unavailable(`${path} is missing: install the Debian package \`${pkg}\``, pkg);
    }
    if (!canWatchTrees())
      throw unavailable("this kernel does not list child processes in /proc (CONFIG_PROC_CHILDREN), so a run's memory cannot be bounded as a whole", 'linux');
    const check = await spawnRun({ code: 'pass', timeoutMs: 10_000 });
    if (check.exit_code !== 0) {
      const reason = check.stderr.trim().split('\n').slice(-1)[0] ?? `exit ${check.exit_code}`;
      throw unavailable(`bwrap could not start a sandbox here (${reason}); it needs user namespaces enabled`, 'bubblewrap');
    }
  }

  function spawnRun(request: RunRequest): Promise<RunOutcome> {
    const cpuSeconds = Math.ceil(request.timeoutMs / 1000) + 1;
    const asRoot = process.getuid?.() === 0;
    const started = performance.now();
    const child = spawn(bwrap, bwrapArgs(limits, cpuSeconds), {
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      env: {},
      ...(asRoot ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {}),
    });
    const out = new ByteCapture(cap);
    const err = new ByteCapture(cap);
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    const codeStream = child.stdio[3] as NodeJS.WritableStream & { on(e: 'error', l: () => void): void };
    // The child may exit without reading its stdin or before bwrap reads the code: ignore EPIPE.
    codeStream.on('error', () => undefined);
    child.stdin!.on('error', () => undefined);
    codeStream.end(request.code);
    child.stdin!.end(request.stdin ?? '');

    let killedFor: EndReason | undefined;
    let ended = false;
    // At the limit, code that has already ended (its MemoryError hook killed it, say) while bwrap is still
    // collecting its status ended first: bwrap gets the drain grace to report that end before it is killed.
    const onLimit = (graceGiven: boolean): void => {
      if (ended || killedFor) return;
      if (!graceGiven && child.pid !== undefined && !runsBeyondLauncher(child.pid, 'bwrap')) {
        timer = setTimeout(onLimit, DRAIN_GRACE_MS, true);
        return;
      }
      killedFor = 'timeout';
      child.kill('SIGKILL');
    };
    let timer = setTimeout(onLimit, request.timeoutMs, false);
    // RLIMIT_AS binds each process; the run as a whole (up to `processes` of them) is bound here.
    const stopWatch =
      child.pid === undefined
        ? () => undefined
        : watchTreeMemory(child.pid, limits.runMemoryBytes, (pids) => {
            killedFor ??= 'memory';
            for (const pid of pids) {
              try {
                process.kill(pid, 'SIGKILL');
              } catch {
                /* already gone */
              }
            }
          });

    return new Promise((resolve, reject) => {
      let settled = false;
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      const finish = (): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(grace);
        stopWatch();
        const { exit_code, reason } = statusOf(exit?.code ?? null, exit?.signal ?? null, killedFor);
        const note =
          reason === 'timeout'
            ? `\n[sandbox] time limit of ${request.timeoutMs} ms (wall or CPU) exceeded; the run was killed\n`
            : killedFor === 'memory'
              ? `\n[sandbox] the run's processes together held more than ${Math.round(limits.runMemoryBytes / 1048576)} MiB; the run was killed\n`
              : '';
        const stderr = withNote(err, note, cap);
        resolve({
          exit_code,
          reason,
          stdout: out.text(),
          stderr: stderr.text,
          stdout_truncated: out.truncated,
          stderr_truncated: stderr.truncated,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        });
      };
      let grace: NodeJS.Timeout | undefined;
      child.once('error', (error) => {
        clearTimeout(timer);
        stopWatch();
        if (!settled) {
          settled = true;
          reject(error);
        }
      });
      child.once('exit', (code, signal) => {
        exit = { code, signal };
        // The run is over: the time limit must not relabel it while its pipes drain.
        ended = true;
        clearTimeout(timer);
        stopWatch();
        // Output normally ends with the process; if a pipe stays open, do not wait on it forever.
        grace = setTimeout(() => {
          child.stdout!.destroy();
          child.stderr!.destroy();
          finish();
        }, DRAIN_GRACE_MS);
      });
      child.once('close', finish);
    });
  }

  // Only success is cached: a failed check is made again on the next call (after an install, say).
  const ready = (): Promise<void> =>
    (readiness ??= probe().catch((error: unknown) => {
      readiness = undefined;
      throw error;
    }));

  return {
    ready,
    async run(request) {
      await ready();
      const release = await slots.acquire();
      try {
        return await spawnRun(request);
      } finally {
        release();
      }
    },
  };
}

/**
 * Maps how bwrap ended to the run's exit code. bwrap reports a child killed by signal N as 128 + N, so a
 * CPU limit (SIGXCPU) reads as a timeout and a SIGKILL as a memory kill: inside the sandbox only the
 * MemoryError hook and the whole-run memory watch kill with it, while the time limit kills bwrap itself,
 * which Node sees as a signal, not a code. So a memory kill is reported as one whatever the wall clock
 * said afterwards; otherwise the reason the runner recorded for its own kill decides.
 */
export function statusOf(code: number | null, signal: NodeJS.Signals | null, killedFor: EndReason | undefined): { exit_code: number; reason: EndReason } {
  if (killedFor === 'memory' || code === SIGKILL_STATUS) return { exit_code: 137, reason: 'memory' };
  if (killedFor === 'timeout') return { exit_code: 124, reason: 'timeout' };
  if (code === SIGXCPU_STATUS) return { exit_code: 124, reason: 'timeout' };
  if (code !== null) return { exit_code: code, reason: 'exit' };
  return { exit_code: 128 + signalNumber(signal), reason: signal === 'SIGKILL' ? 'memory' : 'exit' };
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return (signal && osConstants.signals[signal]) || 1;
}

/** The captured stderr with the runner's note at its end, the whole still within the cap. */
function withNote(err: ByteCapture, note: string, cap: number): { text: string; truncated: boolean } {
  const text = err.text();
  if (note === '') return { text, truncated: err.truncated };
  const room = cap - Buffer.byteLength(note);
  const bytes = Buffer.from(text);
  if (bytes.length <= room) return { text: text + note, truncated: err.truncated };
  return { text: bytes.subarray(0, utf8Boundary(bytes.subarray(0, room))).toString('utf8') + note, truncated: true };
}

function unavailable(message: string, pkg: string): CoreError {
  return new CoreError('NOT_IMPLEMENTED', `The Python sandbox is unavailable: ${message}. Code is never run outside the sandbox.`, { package: pkg });
}

function createSemaphore(size: number): { acquire(): Promise<() => void> } {
  let free = size;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return {
    acquire() {
      if (free > 0) {
        free--;
        return Promise.resolve(release);
      }
      return new Promise((resolve) => waiting.push(() => resolve(release)));
    },
  };
}
