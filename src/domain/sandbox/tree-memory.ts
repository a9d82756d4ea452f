import { readdirSync, readFileSync } from 'node:fs';

/** Every process below `root` (itself included), from the kernel's per-thread child lists; gone ones are skipped. */
export function processTree(root: number): number[] {
  const seen = new Set<number>([root]);
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of threads) {
      let children: string;
      try {
        children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const word of children.split(' ')) {
        const child = Number(word);
        if (word !== '' && Number.isInteger(child) && !seen.has(child)) {
          seen.add(child);
          queue.push(child);
        }
      }
    }
  }
  return [...seen];
}

/** Resident bytes of one process (0 once it is gone); `VmRSS` is in kB whatever the page size. */
export function residentBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Whether any process below `root` other than the launcher (processes whose name is `launcher`) is still
 * alive; a zombie has ended already and only waits for its parent to collect its status.
 */
export function runsBeyondLauncher(root: number, launcher: string): boolean {
  for (const pid of processTree(root)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // `comm` is the second field, in parentheses (and may itself hold parentheses); the state follows it.
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const state = stat.charAt(close + 2);
    if (name !== launcher && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

/** Whether the kernel exposes child lists (`/proc/<pid>/task/<tid>/children`), which the watch needs. */
export function canWatchTrees(): boolean {
  try {
    readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
    return true;
  } catch {
    return false;
  }
}

/**
 * Watches the resident memory of a process tree as a whole. Every `intervalMs` it sums the resident
 * set of every process below `root`; once the sum passes `budgetBytes` it calls `exceeded` with the
 * processes it found (to be killed) and stops. Resident pages a forked child shares with its parent
 * are counted in both: the sum errs on the high side, never the low one.
 */
export function watchTreeMemory(root: number, budgetBytes: number, exceeded: (pids: number[], bytes: number) => void, intervalMs = 20): () => void {
  const timer = setInterval(() => {
    const pids = processTree(root);
    let bytes = 0;
    for (const pid of pids) bytes += residentBytes(pid);
    if (bytes > budgetBytes) {
      clearInterval(timer);
      exceeded(pids, bytes);
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
