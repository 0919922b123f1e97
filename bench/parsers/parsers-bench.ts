/**
 * `npm run bench:parsers` — whether every parser of a stranger's input runs in time linear in it: each
 * parser (parser-list.ts) is fed its worst shapes (test-support/hostile-shapes.ts) at 1x, 8x and 64x a
 * base size (growth.ts chooseBase: at least MIN_BASE_CHARS, or the largest under the parser's cap), and
 * its CPU time per run is measured (process.cpuUsage, warmed for WARM_MS, the least of ROUNDS rounds of
 * TARGET_MS taken in turn across the three sizes, each run after an untimed young-generation collection), each parser-shape in a child process of its own (a fresh heap, and a time limit:
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
  worstGrowth,
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
/** The interleaved rounds stop once a child has run this long, well inside CHILD_LIMIT_MS. */
const ROUNDS_UNTIL_MS = 40_000;
/**
 * Measurements of a parser-shape at most, each in a fresh process: one over the limit is measured again and
 * the measurement whose largest step is smallest kept. The machine's noise does not repeat; a superlinear
 * parser is over the limit every time (a quadratic one shows about 64x, step after step).
 */
const MEASUREMENTS = 3;
/** Longest one parser-shape's child may run; what it measured by then is kept. */
const CHILD_LIMIT_MS = 60_000;
/**
 * V8 flags of the children: a 64 MiB young generation, so a run's garbage is collected young as in a small
 * page's run, and the collector exposed, so each timed run starts after a collection (timePerRun).
 */
const CHILD_FLAGS: string[] = ['--max-semi-space-size=64', '--expose-gc'];

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/** V8's collector, exposed by CHILD_FLAGS' --expose-gc. */
const collect = (globalThis as { gc?: (options: { type: 'minor' | 'major' }) => void }).gc;

/** Runs per round at or below which each run is timed alone after a collection (one run costs about a millisecond or more). */
const ALONE_UP_TO_RUNS = 50;

/**
 * CPU ms of `runs` runs of `parser` over `input`, per run. A run of a millisecond or more is timed on its own
 * after a young-generation collection that is not timed: it then starts with an empty young generation, as a
 * crawler's parse of one page does, instead of paying for the survivors of the run before it (a run that
 * keeps 50,000 entries alive made the next run's scavenges copy them: "URL-list import: many lines" read
 * 17x for 4.6x the entries, and its 64x, the same 50,000 entries, cost a third of its 8x). Shorter runs
 * allocate little and are timed as one batch (a collection and a timer around a run of microseconds
 * would be most of what is measured).
 */
function timePerRun(parser: ParserUnderTest, copies: readonly string[], runs: number): number {
  if (runs > ALONE_UP_TO_RUNS) {
    collect?.({ type: 'minor' });
    const since = process.cpuUsage();
    for (let i = 0; i < runs; i++) parser.run(copies[i % copies.length]);
    return cpuMs(since) / runs;
  }
  let spent = 0;
  for (let i = 0; i < runs; i++) {
    collect?.({ type: 'minor' });
    const since = process.cpuUsage();
    parser.run(copies[i % copies.length]);
    spent += cpuMs(since);
  }
  return spent / runs;
}

/** Bytes of copies each size's runs go round, well past any processor cache (coldCopies). */
const COLD_BYTES = 96 * 1024 * 1024;

/**
 * Copies of `input`, each its own string in memory, enough that running them in turn reads past the
 * processor's caches: every run then reads its input from memory, at 1x as at 64x. Run over one string,
 * a 196 KB input stayed in the cache and a 12 MB one could not, so a parser that reads at memory speed
 * ("bookmark HTML: <a with no >", one search for ">" over the whole file, 0.002 ms at 1x) showed the
 * cache's step as growth (20x), not its code's.
 */
function coldCopies(input: string): string[] {
  const count = Math.max(2, Math.ceil(COLD_BYTES / Math.max(1, input.length)));
  return Array.from({ length: count }, () => JSON.parse(JSON.stringify(input)) as string);
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
 * MIN_BASE_MS, or the largest under the parser's cap), prints the sizes, then measures the sizes in two
 * passes. First each size in turn (warmed up for WARM_MS, one round of TARGET_MS), its CPU ms per run printed
 * on a line of its own as soon as it is known (so the parent keeps what was measured before the time limit,
 * and a size too slow to run at the growth seen is not run). Then ROUNDS - 1 more rounds, taking the sizes in
 * turn within each round, so that what the machine does meanwhile falls on all three sizes alike and each size
 * gets as many rounds as the others (a 64x run of a second used to get one round against the 1x's seven, and
 * the least of seven noisy samples is lower than the least of one); the least per size is printed at the end.
 */
function measureInChild(parser: ParserUnderTest, shape: HostileShape): void {
  const started = Date.now();
  runFor(parser, shape.make(parser.base), ESTIMATE_MS); // compiled before anything is judged
  const estimate = (size: number): number => {
    const input = shape.make(size);
    return Math.min(...[1, 2, 3].map(() => runFor(parser, input, ESTIMATE_MS)));
  };
  const { base } = chooseBase(parser.base, estimate, { cap: parser.cap });
  const inputs = MULTIPLES.map((m) => shape.make(base * m));
  process.stdout.write(`${JSON.stringify({ sizes: inputs.map((t) => t.length) })}\n`);
  const copies: string[][] = [];
  const runs: number[] = [];
  const best: number[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const seen = growthRatios(best);
    if (i > 0 && tooSlowToMeasure(best[i - 1], seen[seen.length - 1], SKIP_MS)) return;
    runs.push(runsToFill(runFor(parser, inputs[i], WARM_MS), TARGET_MS));
    copies.push(coldCopies(inputs[i]));
    best.push(timePerRun(parser, copies[i], runs[i]));
    process.stdout.write(`${JSON.stringify({ ms: best[i] })}\n`);
  }
  for (let r = 1; r < ROUNDS && Date.now() - started < ROUNDS_UNTIL_MS; r++) {
    for (let i = 0; i < inputs.length; i++) best[i] = Math.min(best[i], timePerRun(parser, copies[i], runs[i]));
  }
  process.stdout.write(`${JSON.stringify({ least: best })}\n`);
}

/** One line of the table. */
interface Row {
  parser: ParserUnderTest;
  shape: string;
  sizes: (number | undefined)[];
  msPerRun: (number | undefined)[];
  ratios: number[];
  verdict: 'ok' | 'FAILING';
  /** Measurements taken (more than one when the first was over the limit). */
  measurements: number;
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
    .map((l) => JSON.parse(l) as { sizes?: number[]; ms?: number; least?: number[] });
  const sizes = lines.find((l) => l.sizes !== undefined)?.sizes;
  const first = lines.filter((l) => l.ms !== undefined).map((l) => l.ms);
  const least = lines.find((l) => l.least !== undefined)?.least ?? first;
  const msPerRun = MULTIPLES.map((_, i) => least[i]);
  const ratios = growthRatios(msPerRun, sizes);
  return {
    parser,
    shape: shape.name,
    sizes: MULTIPLES.map((_, i) => sizes?.[i]),
    msPerRun,
    ratios,
    verdict: growthVerdict(ratios),
    measurements: 1,
  };
}

const fmtMs = (x: number | undefined): string =>
  x === undefined ? 'not run' : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(4);
const fmtRatio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(1)}x` : '–');
const verdictText = (r: Row): string =>
  r.measurements === 1 ? r.verdict : `${r.verdict} (the better of ${r.measurements} measurements)`;
const fmtSize = (n: number | undefined): string => (n === undefined ? '–' : n.toLocaleString('en-US'));

function main(): void {
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const write = !process.argv.includes('--no-write') && !process.argv.includes('--no-doc') && only === undefined;
  const loadAtStart = os.loadavg()[0];
  const rows: Row[] = [];
  PARSERS.forEach((parser, p) => {
    if (only !== undefined && !parser.name.toLowerCase().includes(only.toLowerCase())) return;
    parser.shapes.forEach((shape, s) => {
      let row = measure(p, s);
      while (row.verdict === 'FAILING' && row.measurements < MEASUREMENTS) {
        const again = measure(p, s);
        const kept = worstGrowth(again.ratios) < worstGrowth(row.ratios) ? again : row;
        row = { ...kept, measurements: row.measurements + 1 };
      }
      rows.push(row);
      console.log(
        `${`${parser.name}: ${shape.name}`.padEnd(62)} ${row.sizes.map(fmtSize).join(' / ').padStart(28)} chars | ` +
          `${row.msPerRun.map(fmtMs).join(' / ')} ms | ${row.ratios.map(fmtRatio).join(', ')} | ${verdictText(row)}`,
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
      `CPU time per run (process.cpuUsage: each size run for ${WARM_MS} ms first, then the least of ${ROUNDS} rounds of about ${TARGET_MS} ms, the three sizes taken in turn within each round (interleaved rounds stop after ${ROUNDS_UNTIL_MS / 1000} s), a run of a millisecond or more timed alone after a young-generation collection that is not timed; the runs of a size go round copies of its input that together pass ${COLD_BYTES / 1024 / 1024} MiB, so each reads its input from memory, not from a processor cache, at every size; each parser-shape in a fresh process, flags ${CHILD_FLAGS.join(' ')}) and its growth per 8x step (the time ratio scaled to exactly 8x of input where a shape's unit made the sizes differ). ` +
      `Linear is about 8x per step; above ${GROWTH_LIMIT}x in any step is FAILING (the benchmark exits non-zero). ` +
      `A parser-shape over that is measured again in a fresh process, up to ${MEASUREMENTS} measurements in all, and the one whose largest step is smallest is kept (its verdict says so): the machine's noise does not repeat, a superlinear parser is over the limit every time. ` +
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
        `${r.ratios.map(fmtRatio).join(', ')} | ${verdictText(r)} |`,
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
