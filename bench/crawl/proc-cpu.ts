/**
 * CPU time of other processes (the crawler primary and its workers) read from Linux's /proc, so the
 * benchmark can say where the cores went. Elsewhere the readings are simply unavailable.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Fields of /proc/<pid>/stat after the command name (which may contain spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** User + system CPU milliseconds a process has used so far, or undefined if it cannot be read. */
export function processCpuMs(pid: number): number | undefined {
  const f = statFields(pid);
  if (!f) return undefined;
  // After the name: state(0) ppid(1) ... utime(11) stime(12).
  return ((Number(f[11]) + Number(f[12])) * 1000) / clockTicks();
}

/**
 * User + system CPU milliseconds of a process and of its children that have ended and been waited for
 * (cutime, cstime: e.g. the `ps` that crawlee runs every few seconds to read memory), or undefined.
 */
export function processAndReapedCpuMs(pid: number): number | undefined {
  const f = statFields(pid);
  if (!f) return undefined;
  // utime(11) stime(12) cutime(13) cstime(14).
  return ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / clockTicks();
}

/** Pids of the direct children of `pid` (empty when /proc is not available). */
export function childPids(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const f = statFields(Number(e));
    if (f && Number(f[1]) === pid) out.push(Number(e));
  }
  return out;
}

/** CPU ms of a process and, separately, the sum over its direct children. */
export interface TreeCpu {
  selfMs: number;
  childrenMs: number;
  children: number;
}

/** Reads CPU ms of `pid` and of its current children; undefined when /proc cannot be read. */
export function treeCpuMs(pid: number): TreeCpu | undefined {
  const self = processCpuMs(pid);
  if (self === undefined) return undefined;
  const kids = childPids(pid);
  let childrenMs = 0;
  for (const k of kids) childrenMs += processCpuMs(k) ?? 0;
  return { selfMs: self, childrenMs, children: kids.length };
}

/** Machine-wide CPU time from /proc/stat (ms summed over all cores): busy and total. */
export interface MachineCpu {
  busyMs: number;
  totalMs: number;
}

/** Reads the machine's CPU counters; undefined when /proc/stat cannot be read. */
export function machineCpuMs(): MachineCpu | undefined {
  let line: string;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  } catch {
    return undefined;
  }
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user).
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (v.length < 8 || v.some((n) => !Number.isFinite(n))) return undefined;
  const total = v.reduce((s, n) => s + n, 0);
  const idle = v[3] + v[4];
  const k = 1000 / clockTicks();
  return { busyMs: (total - idle) * k, totalMs: total * k };
}
