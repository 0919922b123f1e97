/**
 * The footprint benchmark's section of docs/benchmarks.md, formatted from its runs. Pure.
 */
import type { MachineInfo } from '../crawl/benchmarks-doc.ts';
import type { ProcessMemory } from './process-tree.ts';

/** Markers around the footprint benchmark's section. */
export const FOOTPRINT_MARKERS = { start: '<!-- footprint:start -->', end: '<!-- footprint:end -->' } as const;

/** Issue 15's targets: the whole idle tree, and the server's start to its first answer. */
export const FOOTPRINT_TARGETS = { idleRssMiB: 200, startToAnswerMs: 1000 } as const;

/** One `npm start` as measured. */
export interface FootprintRun {
  /** From the server process's start (/proc, 10 ms ticks) to its first `GET /api/health` 200. */
  startToAnswerMs: number;
  /** From `npm start` to that answer (the build included). */
  launchToAnswerMs: number;
  settleMs: number;
  /** Every process of the tree after the idle wait. */
  processes: ProcessMemory[];
}

/** What the section is made of. */
export interface FootprintReport {
  date: Date;
  machine: MachineInfo;
  loadStart: number;
  loadEnd: number;
  runs: FootprintRun[];
}

const mib = (kib: number) => kib / 1024;
const rssOf = (run: FootprintRun) => run.processes.reduce((s, p) => s + p.rssKiB, 0);
const pssOf = (run: FootprintRun) => run.processes.reduce((s, p) => s + (p.pssKiB ?? NaN), 0);

/** The middle value (the lower middle of an even count). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** A command line as the table shows it: up to its script (the primary's next word is its configuration, not shown). */
function shortCommand(command: string): string {
  const words = command.split(' ');
  const script = words.findIndex((w) => /\.(ts|js|cjs|mjs)$/.test(w));
  const shown = words.slice(0, script === -1 ? 8 : script + 1).join(' ');
  return shown.length < command.length ? `${shown} …` : shown;
}

/** The markdown of the footprint section: headline, the runs, and the processes of the median run. */
export function formatFootprint(r: FootprintReport): string {
  const m = r.machine;
  const when = r.date.toISOString().slice(0, 16).replace('T', ' ');
  const rss = r.runs.map((run) => mib(rssOf(run)));
  const start = r.runs.map((run) => run.startToAnswerMs);
  const medianRss = median(rss);
  const medianStart = median(start);
  const mid = r.runs[rss.indexOf(medianRss)];
  const verdict = (ok: boolean) => (ok ? 'meets the target' : '**misses the target**');
  const lines = [
    '## Footprint',
    '',
    `Measured ${when} UTC by \`npm run bench:footprint\` on ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.platform}; 1-minute load average ${r.loadStart.toFixed(1)} at the start, ${r.loadEnd.toFixed(1)} at the end (the machine is shared).`,
    '',
    `How it is measured: \`npm start\` as a person runs it (its own process group, a fresh DATA_DIR, a free PORT, default settings, nothing to crawl), ${r.runs.length} times. Start to first answer: from the moment the server process's command line appears in /proc (npm start's shell execs node on \`dist/server/main.js\` once the build is over; polled every 5 ms) to the first \`GET /api/health\` 200, polled every 5 ms. Idle memory: after ${(mid.settleMs / 1000).toFixed(0)} s idle, VmRSS of every live process of the group (the npm wrapper and its shell included) from /proc, summed; Pss (shared pages divided among the processes sharing them) beside it. Then Ctrl+C.`,
    '',
    '| | median | runs | target |',
    '|---|---:|---|---|',
    `| Start to first answer | **${medianStart.toFixed(0)} ms** | ${start.map((x) => x.toFixed(0)).join(', ')} ms | ≤ ${FOOTPRINT_TARGETS.startToAnswerMs} ms: ${verdict(medianStart <= FOOTPRINT_TARGETS.startToAnswerMs)} |`,
    `| \`npm start\` to first answer (build included) | ${median(r.runs.map((x) => x.launchToAnswerMs)).toFixed(0)} ms | ${r.runs.map((x) => x.launchToAnswerMs.toFixed(0)).join(', ')} ms | |`,
    `| Idle RSS, whole tree | **${medianRss.toFixed(0)} MiB** | ${rss.map((x) => x.toFixed(0)).join(', ')} MiB | ≤ ${FOOTPRINT_TARGETS.idleRssMiB} MiB: ${verdict(medianRss <= FOOTPRINT_TARGETS.idleRssMiB)} |`,
    `| Idle Pss, whole tree | ${mib(pssOf(mid)).toFixed(0)} MiB | ${r.runs.map((x) => mib(pssOf(x)).toFixed(0)).join(', ')} MiB | |`,
    '',
    `The processes of the median run (${mid.processes.length}):`,
    '',
    '| process | RSS MiB | Pss MiB | command |',
    '|---|---:|---:|---|',
    ...mid.processes.map(
      (p) =>
        `| ${p.role} | ${mib(p.rssKiB).toFixed(1)} | ${p.pssKiB === undefined ? '–' : mib(p.pssKiB).toFixed(1)} | \`${shortCommand(p.command)}\` |`,
    ),
  ];
  return lines.join('\n');
}
