/**
 * CPU time from /proc for the benchmarks: one process, a process and its descendants (Chromium's
 * renderers, GPU and utility processes), and the whole machine. Linux only; elsewhere the readers
 * return null (or fall back to os.cpus for the machine).
 */
import fs from 'node:fs';
import os from 'node:os';

/** CPU time (user + system) of one process from /proc, in milliseconds; null where /proc is missing. */
export function readProcessCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}

/** Busy CPU time of the whole machine in milliseconds, softirq (loopback networking) and steal included where /proc/stat exists. */
export function readMachineBusyMs(): number {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) * 10;
  } catch {
    return os.cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0);
  }
}

/** Parent pid of every process visible in /proc. */
function readParents(): Map<number, number> {
  const parents = new Map<number, number>();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return parents;
  }
  for (const name of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return parents;
}

/**
 * CPU time in milliseconds of every living descendant of `rootPid` (not the root itself). Children
 * that have exited are not counted, so read it over windows in which the processes stay up.
 */
export function readDescendantsCpuMs(rootPid: number): number | null {
  const parents = readParents();
  if (parents.size === 0) return null;
  const inTree = new Set([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (!inTree.has(pid) && inTree.has(parent)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  inTree.delete(rootPid);
  let total = 0;
  for (const pid of inTree) total += readProcessCpuMs(pid) ?? 0;
  return total;
}
