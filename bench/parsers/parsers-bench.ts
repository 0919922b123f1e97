/**
 * `npm run bench:parsers` — whether every parser of a stranger's input runs in time linear in it: each
 * parser (parser-list.ts) is fed its worst shapes (test-support/hostile-shapes.ts) at 1x, 8x and 64x a
 * base size (growth.ts chooseBase: at least MIN_BASE_CHARS, or the largest under the parser's cap), and
 * its CPU time per run is measured (process.cpuUsage, warmed for WARM_MS, the least of ROUNDS rounds of
 * TARGET_MS), each parser-shape in a child process of its own (a fresh heap, and a time limit:
 * CHILD_LIMIT_MS). Linear is about 8x per step; a parser-shape above GROWTH_LIMIT (12x) in
 * any step, or not measured at a size, is FAILING, and the benchmark then exits non-zero. A size whose
 * one run would take longer than SKIP_MS at the growth already seen is not run. Prints the table and
 * writes it to docs/benchmarks.md (its own section; `--no-write` or `--no-doc` does not). `--only=<text>`
 * runs the parsers whose name contains it (and writes nothing).
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostileShape } from '../../test-support/hostile-shapes.ts';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';
import {
  chooseBase,
  GROWTH_LIMIT,
  growthRatios,
  growthVerdict,
  MAX_BASE_CHARS,
  MIN_BASE_CHARS,
  MIN_BASE_MS,
  MULTIPLES,
  runsToFill,
  tooSlowToMeasure,
} from './growth.ts';
import { PARSERS, type ParserUnderTest } from './parser-list.ts';

const SELF = fileURLToPath(import.meta.url);
const DOC = path.join(path.dirname(SELF), '..', '..', 'docs', 'benchmarks.md');
const MARKERS = { start: '<!-- parsers:start -->', end: '<!-- parsers:end -->' } as const;
/** CPU time each round of a size fills. */
const TARGET_MS = 50;
/** Rounds per size; the least time per run is kept (the others carry garbage collection and the machine's noise). */
const ROUNDS = 7;
/** CPU time each size is run before it is timed (so what is timed is optimised code, as in a long-running crawler). */
const WARM_MS = 30;
/** CPU time of each of the three batches (the least kept) that estimate one run's cost while the base size is chosen. */
const ESTIMATE_MS = 5;
/** A size whose one run would take longer than this (at the growth seen so far) is not run. */
const SKIP_MS = 10_000;
/** Longest one parser-shape's child may run; what it measured by then is kept. */
const CHILD_LIMIT_MS = 60_000;
/** V8 flags of the children: a 64 MiB young generation, so a run's garbage is collected young as in a small page's run. */
const CHILD_FLAGS: string[] = ['--max-semi-space-size=64'];

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/** CPU ms of `runs` runs of `parser` over `input`, per run. */
function timePerRun(parser: ParserUnderTest, input: string, runs: number): number {
  const since = process.cpuUsage();
  for (let i = 0; i < runs; i++) parser.run(input);
  return cpuMs(since) / runs;
}

/** Runs `parser` over `input` until `ms` of CPU have passed (at least once); CPU ms per run. */
function runFor(parser: ParserUnderTest, input: string, ms: number): number {
  const since = process.cpuUsage();
  let runs = 0;
  let spent = 0;
  do {
    parser.run(input);
    runs++;
    spent = cpuMs(since);
  } while (spent < ms);
  return spent / runs;
}

/**
 * In the child: chooses the shape's base size (growth.ts chooseBase: grown until one run costs
 * MIN_BASE_MS, or the largest under the parser's cap), prints the sizes, then measures each size
 * (warmed up for WARM_MS, then the least of ROUNDS rounds of TARGET_MS) and prints its CPU ms per run
 * on a line of its own as soon as it is known (so the parent keeps what was measured before the time limit).
 */
function measureInChild(parser: ParserUnderTest, shape: HostileShape): void {
  runFor(parser, shape.make(parser.base), ESTIMATE_MS); // compiled before anything is judged
  const estimate = (size: number): number => {
    const input = shape.make(size);
    return Math.min(...[1, 2, 3].map(() => runFor(parser, input, ESTIMATE_MS)));
  };
  const { base } = chooseBase(parser.base, estimate, { cap: parser.cap });
  const inputs = MULTIPLES.map((m) => shape.make(base * m));
  process.stdout.write(`${JSON.stringify({ sizes: inputs.map((t) => t.length) })}\n`);
  const msPerRun: number[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const seen = growthRatios(msPerRun);
    if (i > 0 && tooSlowToMeasure(msPerRun[i - 1], seen[seen.length - 1], SKIP_MS)) return;
    const runs = runsToFill(runFor(parser, inputs[i], WARM_MS), TARGET_MS);
    let best = Number.POSITIVE_INFINITY;
    for (let r = 0; r < ROUNDS; r++) {
      best = Math.min(best, timePerRun(parser, inputs[i], runs));
      if (best * runs > 1000) break; // a round of over a second is not noise
    }
    msPerRun.push(best);
    process.stdout.write(`${JSON.stringify({ ms: best })}\n`);
  }
}

/** One line of the table. */
interface Row {
  parser: ParserUnderTest;
  shape: string;
  sizes: (number | undefined)[];
  msPerRun: (number | undefined)[];
  ratios: number[];
  verdict: 'ok' | 'FAILING';
}

/** Measures one parser-shape in a child process of its own, stopped after CHILD_LIMIT_MS. */
function measure(parserIndex: number, shapeIndex: number): Row {
  const parser = PARSERS[parserIndex];
  const shape = parser.shapes[shapeIndex];
  const child = spawnSync(
    process.execPath,
    [...CHILD_FLAGS, '--import', 'tsx', SELF, '--child', String(parserIndex), String(shapeIndex)],
    { encoding: 'utf8', timeout: CHILD_LIMIT_MS, maxBuffer: 1024 * 1024 },
  );
  const timedOut = child.signal !== null;
  if (child.error && !timedOut) throw child.error;
  if (child.status !== 0 && !timedOut) {
    throw new Error(`parsers-bench: measuring "${parser.name}: ${shape.name}" failed: ${child.stderr.trim()}`);
  }
  const lines = child.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { sizes?: number[]; ms?: number });
  const sizes = lines.find((l) => l.sizes !== undefined)?.sizes;
  const times = lines.filter((l) => l.ms !== undefined).map((l) => l.ms);
  const msPerRun = MULTIPLES.map((_, i) => times[i]);
  const ratios = growthRatios(msPerRun, sizes);
  return {
    parser,
    shape: shape.name,
    sizes: MULTIPLES.map((_, i) => sizes?.[i]),
    msPerRun,
    ratios,
    verdict: growthVerdict(ratios),
  };
}

const fmtMs = (x: number | undefined): string =>
  x === undefined ? 'not run' : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(4);
const fmtRatio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(1)}x` : '–');
const fmtSize = (n: number | undefined): string => (n === undefined ? '–' : n.toLocaleString('en-US'));

function main(): void {
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const write = !process.argv.includes('--no-write') && !process.argv.includes('--no-doc') && only === undefined;
  const loadAtStart = os.loadavg()[0];
  const rows: Row[] = [];
  PARSERS.forEach((parser, p) => {
    if (only !== undefined && !parser.name.toLowerCase().includes(only.toLowerCase())) return;
    parser.shapes.forEach((shape, s) => {
      const row = measure(p, s);
      rows.push(row);
      console.log(
        `${`${parser.name}: ${shape.name}`.padEnd(62)} ${row.sizes.map(fmtSize).join(' / ').padStart(28)} chars | ` +
          `${row.msPerRun.map(fmtMs).join(' / ')} ms | ${row.ratios.map(fmtRatio).join(', ')} | ${row.verdict}`,
      );
    });
  });

  const failing = rows.filter((r) => r.verdict === 'FAILING');
  const m = machineInfo();
  const load = `${loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end`;
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const doc = [
    '## Parser growth (`npm run bench:parsers`)',
    '',
    `Measured ${when} UTC on ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.platform}; load average ${load}.`,
    '',
    'Every parser of bytes a site or a file chose, fed its worst shapes (test-support/hostile-shapes.ts) at 1x, 8x and 64x a base size. ' +
      `The base size (1x) is at least ${fmtSize(MIN_BASE_CHARS)} characters, past the step where V8 puts strings and arrays over 128 KB in its large-object space (fresh pages each: about 1.8x the cost per character of the same linear code below it), so all three sizes are on one side of that step; ` +
      `it is then doubled until one run costs at least ${MIN_BASE_MS} ms of CPU (at most ${fmtSize(MAX_BASE_CHARS)} characters), so that fixed costs and timer noise do not set the ratios. ` +
      `CPU time per run (process.cpuUsage: each size run for ${WARM_MS} ms first, then the least of ${ROUNDS} rounds of about ${TARGET_MS} ms; each parser-shape in a fresh process, flags ${CHILD_FLAGS.join(' ')}) and its growth per 8x step (the time ratio scaled to exactly 8x of input where a shape's unit made the sizes differ). ` +
      `Linear is about 8x per step; above ${GROWTH_LIMIT}x in any step is FAILING (the benchmark exits non-zero). ` +
      `A size whose one run would take over ${SKIP_MS / 1000} s at the growth already seen, or that a ${CHILD_LIMIT_MS / 1000} s limit stopped, is "not run" (and fails). ` +
      'Parsers whose input the product caps (the query parser reads at most 1,000 characters, URLs are refused past 2,048, robots.txt is read to 500 KiB) are measured at the largest base whose 64x fits under the cap (many runs each): their cost is bounded whatever the growth. ' +
      'With a load average above the core count, a linear parser can show 12-18x in one step and not in the next (compare runs); a quadratic one shows about 64x, step after step.',
    '',
    failing.length === 0
      ? `Every parser-shape (${rows.length}) grows at most ${GROWTH_LIMIT}x per step.`
      : `${failing.length} of ${rows.length} parser-shapes FAILING: ${failing.map((r) => `${r.parser.name}: ${r.shape}`).join('; ')}.`,
    '',
    '| Parser | Shape | Size, chars (1x / 8x / 64x) | CPU ms per run (1x / 8x / 64x) | Growth per 8x step | Verdict |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.parser.name} (${r.parser.file}) | ${r.shape} | ${r.sizes.map(fmtSize).join(' / ')} | ${r.msPerRun.map(fmtMs).join(' / ')} | ` +
        `${r.ratios.map(fmtRatio).join(', ')} | ${r.verdict} |`,
    ),
  ].join('\n');
  if (write) {
    writeSection(DOC, MARKERS, doc);
    console.log(`wrote ${path.relative(process.cwd(), DOC)}`);
  }
  if (failing.length > 0) {
    console.error(`parsers-bench: ${failing.length} parser-shapes grow faster than ${GROWTH_LIMIT}x per 8x of input`);
    process.exitCode = 1;
  }
}

const childAt = process.argv.indexOf('--child');
if (childAt === -1) {
  main();
} else {
  const parser = PARSERS[Number(process.argv[childAt + 1])];
  measureInChild(parser, parser.shapes[Number(process.argv[childAt + 2])]);
}
