/**
 * `npm run bench:frontier`: what the frontier costs the crawler primary, part by part, each in a child
 * process of its own (so each heap figure is its own and one part's garbage does not slow the next).
 * Today's parts are the pure scheduler's (scheduler-parts.ts); the database-backed parts (primary RSS,
 * first dispatch after a restart, removal of a 100,000-URL seed) join PARTS as they are built: a part
 * is a name, a function run in the child that returns JSON, and a function that formats it as markdown.
 *
 * Options: --only <part,...> runs some parts; --no-write leaves docs/benchmarks.md alone.
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';
import { runSchedulerWorkload, SCHEDULER_WORKLOADS, type SchedulerFigures } from './scheduler-parts.ts';
import { formatSchedulerSection, FRONTIER_MARKERS } from './frontier-report.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DOC = path.join(HERE, '..', '..', 'docs', 'benchmarks.md');

/** One part of the benchmark: runs in a child, returns JSON-able figures. */
interface Part {
  name: string;
  run: () => unknown;
}

const PARTS: Part[] = Object.entries(SCHEDULER_WORKLOADS).map(([name, w]) => ({ name, run: () => runSchedulerWorkload(w) }));

function runInChild(name: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--child', name], {
      execArgv: ['--import', 'tsx', '--expose-gc', '--max-old-space-size=4096'],
    });
    let result: unknown;
    child.once('message', (m) => { result = m; });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0 && result !== undefined) resolve(result);
      else reject(new Error(`frontier-bench: part ${name} exited with code ${code} before sending its figures`));
    });
  });
}

const ms = (x: number) => (x < 0.01 ? `${(x * 1000).toFixed(2)} µs` : `${x.toFixed(3)} ms`);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    const part = PARTS.find((p) => p.name === args[1]);
    if (!part) throw new Error(`frontier-bench: no part named ${args[1]}`);
    process.send!(part.run(), () => process.exit(0));
    return;
  }
  const onlyArg = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
  const only = onlyArg?.split(',');
  const unknown = only?.filter((n) => !PARTS.some((p) => p.name === n)) ?? [];
  if (unknown.length > 0) throw new Error(`frontier-bench: --only names unknown parts (${unknown.join(', ')}); the parts are ${PARTS.map((p) => p.name).join(', ')}`);
  const m = machineInfo();
  const started = new Date();
  const loadAtStart = os.loadavg()[0];
  console.log(`frontier-bench: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}`);
  const figures: SchedulerFigures[] = [];
  for (const part of PARTS) {
    if (only && !only.includes(part.name)) continue;
    console.log(`frontier-bench: ${part.name} ...`);
    const f = (await runInChild(part.name)) as SchedulerFigures;
    figures.push(f);
    console.log(`  ${f.label}: add ${f.queued.toLocaleString('en')} jobs ${f.addMs.toFixed(0)} ms (CPU ${f.addCpuMs.toFixed(0)} ms); next() p50 ${ms(f.next.p50)}, p99 ${ms(f.next.p99)}, max ${ms(f.next.max)} over ${f.dispatches.toLocaleString('en')}; complete() p99 ${ms(f.complete.p99)}; heap: jobs ${f.jobsHeapMiB.toFixed(0)} MiB + scheduler ${f.schedulerHeapMiB.toFixed(0)} MiB`);
  }
  const section = formatSchedulerSection({ date: started, machine: m, loadAtStart, loadAtEnd: os.loadavg()[0], figures });
  console.log(`\n${section}`);
  if (args.includes('--no-write') || only) {
    console.log('frontier-bench: docs/benchmarks.md not written (--no-write or --only)');
    return;
  }
  writeSection(DOC, FRONTIER_MARKERS, section);
  console.log(`frontier-bench: wrote the frontier section of ${path.relative(process.cwd(), DOC)}`);
}

await main();
