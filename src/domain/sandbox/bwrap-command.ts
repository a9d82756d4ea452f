/** Resource limits of one sandbox run. */
export interface SandboxLimits {
  /** Address space of each process (RLIMIT_AS), bytes. */
  memoryBytes: number;
  /** Resident memory of all the run's processes together, bytes; the runner kills the run beyond it (137). */
  runMemoryBytes: number;
  /** Processes and threads inside the sandbox (RLIMIT_NPROC, counted in the sandbox's own user namespace). */
  processes: number;
  /** Largest file a process may write (RLIMIT_FSIZE), bytes. */
  fileBytes: number;
  /** Size of the private `/tmp` (tmpfs), bytes. */
  tmpBytes: number;
  /** Open files per process (RLIMIT_NOFILE). */
  openFiles: number;
}

export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({
  memoryBytes: 512 * 1024 * 1024,
  runMemoryBytes: 512 * 1024 * 1024,
  processes: 16,
  fileBytes: 16 * 1024 * 1024,
  tmpBytes: 64 * 1024 * 1024,
  openFiles: 64,
});

/** Absolute paths: a shim on PATH (pyenv, asdf) costs about 80 ms a run and is not the system interpreter. */
export const PYTHON = '/usr/bin/python3';
export const PRLIMIT = '/usr/bin/prlimit';
/** Where the code is mounted (read-only) inside the sandbox; tracebacks name it. */
export const MAIN_PATH = '/run/main.py';
/** The unprivileged uid the code runs as inside the sandbox (and outside, when the server is root). */
export const SANDBOX_UID = 65534;

/**
 * Runs before the code, as `python3 -I -S -c BOOT`. `-S` skips the `site` module: about 4 ms of the
 * ~14 ms a run costs here, and host-installed third-party packages stay out (standard library only);
 * `exit` and `quit`, which `site` would define, are provided here. An uncaught MemoryError (the
 * RLIMIT_AS limit was hit) becomes a SIGKILL of the process, so the run reports 137 "killed for
 * memory" instead of exit 1; every other uncaught exception prints its usual traceback minus this
 * bootstrap's own frame. The code runs in fresh globals as `__main__`, compiled from the mounted file
 * so tracebacks show its lines.
 */
export const BOOT = [
  'import os, sys',
  'def _hook(t, v, tb, _k=os.kill, _p=os.getpid, _w=os.write, _e=sys.__excepthook__):',
  '    if tb is not None and tb.tb_frame.f_code.co_filename == "<string>":',
  '        tb = tb.tb_next',
  '        if isinstance(v, BaseException):',
  '            v = v.with_traceback(tb)',
  '    if isinstance(t, type) and issubclass(t, MemoryError):',
  '        try:',
  '            _w(2, b"MemoryError: the sandbox memory limit was exceeded; the run was killed\\n")',
  '        finally:',
  '            _k(_p(), 9)',
  '    _e(t, v, tb)',
  'sys.excepthook = _hook',
  'import builtins',
  'builtins.exit = builtins.quit = sys.exit',
  'del builtins',
  `sys.argv = [${JSON.stringify(MAIN_PATH)}]`,
  `with open(${JSON.stringify(MAIN_PATH)}, "rb") as _f:`,
  `    _c = compile(_f.read(), ${JSON.stringify(MAIN_PATH)}, "exec")`,
  'del _f, _hook',
  `exec(_c, {"__name__": "__main__", "__file__": ${JSON.stringify(MAIN_PATH)}, "__builtins__": __builtins__})`,
].join('\n');

/**
 * The bwrap argument list for one run. The code arrives on fd 3 and is mounted read-only; nothing of the
 * host is visible but `/usr` (read-only): no `/etc`, no home, no data dir. Every namespace is unshared
 * (no network), the root is remounted read-only after setup, `/tmp` is a size-capped private tmpfs, and
 * the sandbox dies with the server (`--die-with-parent`) and cannot reach its terminal (`--new-session`).
 * Limits are set by `prlimit` inside the sandbox so they bind the code, not bwrap.
 */
export function bwrapArgs(limits: SandboxLimits, cpuSeconds: number): string[] {
  return [
    '--unshare-all',
    '--unshare-user',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'HOME',
    '/tmp',
    // One malloc arena per thread would reserve 64 MB of address space each and hit RLIMIT_AS early.
    '--setenv',
    'MALLOC_ARENA_MAX',
    '2',
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--symlink',
    'usr/sbin',
    '/sbin',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(limits.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--ro-bind-data',
    '3',
    MAIN_PATH,
    '--remount-ro',
    '/',
    '--chdir',
    '/tmp',
    PRLIMIT,
    `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
    PYTHON,
    '-I',
    '-S',
    '-c',
    BOOT,
  ];
}
