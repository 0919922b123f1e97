/**
 * Process inspection for tests that kill real processes (Linux /proc): who is alive, who are a
 * process's children, who is still in a process group. Reads only; never signals anything.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name: state, parent pid, process group. */
function stat(pid: number): { state: string; ppid: number; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0], ppid: Number(rest[1]), pgrp: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

/** Whether a process exists and is not a zombie (an orphan's zombie may wait a while for its reaper). */
export function isAlive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z';
}

/** The live children of a process: every thread's `children` list in /proc. */
export function childPids(pid: number): number[] {
  const out = new Set<number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  for (const t of tasks) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/)) {
        if (c !== '') out.add(Number(c));
      }
    } catch {
      // The thread ended while we looked.
    }
  }
  return [...out].filter(isAlive);
}

/** The command line of a process ('' if it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/**
 * Live processes whose process group is `pgid`: everything a process started with `detached: true`
 * left behind, including children that were re-parented after it died.
 */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s !== undefined && s.pgrp === pgid && s.state !== 'Z') out.push(Number(name));
  }
  return out;
}

/**
 * Whether `pid` runs the crawler's `role` process, from its source (crawler/worker.ts through tsx) or from
 * the build (dist/crawler/worker.js): the harness forks the build when it is fresh (crawler-harness.ts).
 */
export function runsCrawler(pid: number, role: 'primary' | 'worker'): boolean {
  return new RegExp(`crawler/${role}\\.(ts|js)\\b`).test(commandLine(pid));
}

/**
 * The crawler workers among a primary's children. With a cold tsx cache a process also has an esbuild
 * service child, so counting all children would count that too.
 */
export function workerChildren(pid: number): number[] {
  return childPids(pid).filter((c) => runsCrawler(c, 'worker'));
}
