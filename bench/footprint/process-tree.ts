/**
 * A process tree's memory as Linux's /proc tells them: every live member of a process
 * group, what it runs, its resident size (VmRSS) and its proportional share (Pss, shared pages split
 * among the processes that map them), and the system's clock. Reads only.
 */
import { readFileSync } from 'node:fs';
import { commandLine, groupMembers } from '../../test-support/proc.ts';

/** One process of the tree as measured. Sizes in KiB. */
export interface ProcessMemory {
  pid: number;
  /** What it is, from its command line: npm, sh, server, primary, worker, esbuild or other. */
  role: string;
  command: string;
  rssKiB: number;
  pssKiB: number | undefined;
}

/** Milliseconds since the system booted, now (from /proc/uptime, 10 ms resolution). */
export function uptimeMs(): number {
  return Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000;
}

/** What a Lantern process is, from its command line. */
export function roleOf(command: string): string {
  if (/(^|\/)npm(-cli\.js)?( |$)/.test(command) || command.includes('npm-cli.js')) return 'npm';
  if (/^(\/bin\/|\/usr\/bin\/)?(sh|bash|dash) /.test(command)) return 'sh';
  // Before the process entries: the build's esbuild is given them as arguments (`esbuild server/main.ts ...`).
  if (/(^|\/)esbuild$/.test(command.split(' ')[0])) return 'esbuild';
  if (command.includes('server/main.')) return 'server';
  if (command.includes('crawler/primary.')) return 'primary';
  if (command.includes('crawler/worker.')) return 'worker';
  if (command.includes('esbuild')) return 'esbuild';
  return 'other';
}

/** VmRSS of a process in KiB; undefined if it is gone (or a zombie, which has none). */
function rssKiB(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Pss of a process in KiB (/proc/<pid>/smaps_rollup); undefined where the kernel does not say. */
function pssKiB(pid: number): number | undefined {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Every live process of the process group `pgid`, with its memory, largest first. */
export function groupMemory(pgid: number): ProcessMemory[] {
  const out: ProcessMemory[] = [];
  for (const pid of groupMembers(pgid)) {
    const rss = rssKiB(pid);
    if (rss === undefined) continue;
    const command = commandLine(pid);
    out.push({ pid, role: roleOf(command), command, rssKiB: rss, pssKiB: pssKiB(pid) });
  }
  return out.sort((a, b) => b.rssKiB - a.rssKiB);
}

/** The first live member of the group whose role is `role`, if any. */
export function findRole(pgid: number, role: string): number | undefined {
  return groupMembers(pgid).find((pid) => roleOf(commandLine(pid)) === role);
}
