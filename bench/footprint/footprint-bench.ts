/**
 * `npm run bench:footprint`: what Lantern costs a machine it runs on all day. It runs `npm start` as a
 * person does (in its own process group, on a fresh DATA_DIR and a free port, nothing to crawl), and
 * measures (1) start to first answer: from the moment the server process started (the build is over
 * by then; seen as its command line appears in /proc, polled every 5 ms: npm start's shell execs node,
 * so the process keeps the shell's pid and /proc start time, from before the build) to the first
 * `GET /api/health` 200; (2) the idle footprint: once it has
 * been idle for --settle-ms, the resident memory (VmRSS, and Pss) of every process of the tree, the npm
 * wrapper included, summed from /proc. Then Ctrl+C (SIGINT to the group), as a person stops it.
 * Prints the figures and writes the footprint section of docs/benchmarks.md.
 *
 * Options: see USAGE (parsed by util.parseArgs; an unknown option or a bad value stops it with USAGE).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../../test-support/app-process.ts';
import { groupMembers } from '../../test-support/proc.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';
import { FOOTPRINT_MARKERS, formatFootprint, type FootprintRun } from './footprint-report.ts';
import { findRole, groupMemory, uptimeMs, type ProcessMemory } from './process-tree.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = path.join(ROOT, 'docs', 'benchmarks.md');

const USAGE = `Options: --settle-ms=N (how long the started app is left idle before its memory is read, default 20000),
--runs=N (start and measure it this many times, default 3), --no-write (print only).`;

/** The command line, checked: a bad option throws `footprint-bench: <what was wrong>` and USAGE. */
function options(): { settleMs: number; runs: number; write: boolean } {
  const bad = (why: string): Error => new Error(`footprint-bench: ${why}\n${USAGE}`);
  // biome-ignore lint/suspicious/noImplicitAnyLet: set in the try below; its type is the one inferred there
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        'settle-ms': { type: 'string', default: '20000' },
        runs: { type: 'string', default: '3' },
        'no-write': { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    if (err instanceof TypeError) throw bad(err.message);
    throw err;
  }
  const settleMs = Number(values['settle-ms']);
  const runs = Number(values.runs);
  if (!Number.isInteger(settleMs) || settleMs < 0 || settleMs > 600_000)
    throw bad('--settle-ms must be an integer from 0 to 600000');
  if (!Number.isInteger(runs) || runs < 1 || runs > 20) throw bad('--runs must be an integer from 1 to 20');
  return { settleMs, runs, write: !values['no-write'] };
}

/** Whether GET /api/health answers 200 now. */
async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/api/health`)).status === 200;
  } catch {
    return false;
  }
}

/** One `npm start`: started, timed to its first answer, left idle, measured, stopped with Ctrl+C. */
async function measureOnce(settleMs: number): Promise<FootprintRun> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-footprint-'));
  const port = await freePort();
  const launchedAt = uptimeMs();
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true, // its own process group: the whole tree is found, and stopped, as one
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  npm.stderr.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  const pgid = npm.pid!;
  try {
    // The server process appears once the build is over: the shell that ran the build execs node on
    // dist/server/main.js (same pid, same /proc start time), so its start is when that command line appears.
    await waitFor(() => findRole(pgid, 'server'), {
      timeoutMs: 300_000,
      intervalMs: 5,
      message: `npm start to start the server process; output: ${output}`,
    });
    const serverStartedAt = uptimeMs();
    await waitFor(() => healthy(port), {
      timeoutMs: 60_000,
      intervalMs: 5,
      message: `the server to answer on port ${port}; output: ${output}`,
    });
    const answeredAt = uptimeMs();
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    if (!(await healthy(port)))
      throw new Error(`footprint-bench: the server stopped answering while idle; output: ${output}`);
    const processes: ProcessMemory[] = groupMemory(pgid);
    return {
      startToAnswerMs: answeredAt - serverStartedAt,
      launchToAnswerMs: answeredAt - launchedAt,
      settleMs,
      processes,
    };
  } finally {
    try {
      process.kill(-pgid, 'SIGINT'); // Ctrl+C reaches the whole group
    } catch {
      // The group is gone already.
    }
    const killer = setTimeout(() => {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 20_000);
    await exited;
    await waitFor(() => groupMembers(pgid).length === 0, {
      timeoutMs: 20_000,
      message: `every process of group ${pgid} to exit`,
    });
    clearTimeout(killer);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { settleMs, runs, write } = options();
  const machine = machineInfo();
  const date = new Date();
  const loadStart = os.loadavg()[0];
  console.log(
    `footprint-bench: ${machine.cpu}, ${machine.cores} cores, ${machine.ramGiB} GiB RAM, Node ${machine.node}; load ${loadStart.toFixed(1)}`,
  );
  const results: FootprintRun[] = [];
  for (let i = 0; i < runs; i++) {
    console.log(`footprint-bench: run ${i + 1}/${runs}: npm start, idle ${settleMs} ms ...`);
    const run = await measureOnce(settleMs);
    const total = run.processes.reduce((s, p) => s + p.rssKiB, 0);
    console.log(
      `  start to first answer ${run.startToAnswerMs.toFixed(0)} ms; idle RSS ${(total / 1024).toFixed(0)} MiB over ${run.processes.length} processes`,
    );
    results.push(run);
  }
  const section = formatFootprint({ date, machine, loadStart, loadEnd: os.loadavg()[0], runs: results });
  console.log(`\n${section}`);
  if (write) {
    writeSection(DOC, FOOTPRINT_MARKERS, section);
    console.log(`footprint-bench: wrote the footprint section of ${path.relative(process.cwd(), DOC)}`);
  } else {
    console.log('footprint-bench: docs/benchmarks.md not written (--no-write)');
  }
}

await main();
