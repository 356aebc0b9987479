// What the system tells of processes: whether one still runs, and from Linux's /proc
// those a process started and how much memory one has held at most.
import { readdirSync, readFileSync } from 'node:fs';

/** Linux: the processes `pid` started, and theirs, from /proc. */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number) => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      let children = '';
      try {
        children = readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const child of children.split(' ').filter(Boolean).map(Number)) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

/** A process's peak resident set so far (VmHWM), in bytes; 0 once it has gone. */
export function peakRss(pid: number): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return hwm ? Number(hwm[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Whether `pid` still runs: false once it has exited, even while its parent has not reaped it (where /proc tells). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it runs, as another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // An exited child not yet reaped still takes signal 0.
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return true;
  }
}

/**
 * Linux: when `pid` started, in clock ticks since boot (the 22nd field of /proc's stat), which another process
 * given the same pid later does not share; undefined elsewhere, or once it has gone.
 */
export function startOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Whether the process that was `pid` and started at `start` (startOf's, where it was known) still runs: a process that
 * started at another time was given the pid of one that died (as a container's processes are after a restart).
 */
export const stillRuns = (pid: number, start: string | undefined): boolean => running(pid) && sameStart(startOf(pid), start);

/**
 * Whether a process that runs, started at `now` (undefined where /proc does not tell), is the one that started at `then`.
 * A process that runs but whose start /proc hides, another user's under `hidepid=2`, is taken for it: taking a live
 * build for dead would take over its lock and remove its files, while the other mistake only keeps a stale lock.
 */
export const sameStart = (now: string | undefined, then: string | undefined): boolean => !then || now === undefined || now === then;

let ownTagMemo: string | undefined;
/**
 * This process as the names of the files and folders it leaves beside its output say who made them: its pid, and on
 * Linux `_` and when it started, so that a process given its pid later is not taken for it.
 */
export function ownTag(): string {
  if (ownTagMemo === undefined) {
    const start = startOf(process.pid);
    ownTagMemo = start ? `${process.pid}_${start}` : String(process.pid);
  }
  return ownTagMemo;
}

/** Whether the process an ownTag() names still runs (a pid alone, as older versions named them, by its pid). */
export function tagRuns(tag: string): boolean {
  const [pid, start] = tag.split('_');
  return stillRuns(Number(pid), start);
}

/** The processes `pid` started whose program is one of `names`. */
export function childrenNamed(pid: number, names: readonly string[]): number[] {
  return descendants(pid).filter((child) => {
    try {
      return names.includes(readFileSync(`/proc/${child}/comm`, 'utf8').trim());
    } catch {
      return false;
    }
  });
}
