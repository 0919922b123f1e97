/**
 * `npm run bench:robots` — what the costliest robots.txt files we can build (test-support/costly-robots.ts)
 * cost the crawler primary: the time to read and compile each (parseRobots: tokenize, choose our group,
 * compile), and per check of a URL with a 2,000-character path: the counted steps (exact, the same on
 * every machine) and the time (p50 and max over every check). robots-parser, which the crawler used
 * before, is timed on one check of each for comparison (`--no-before` skips it: it takes seconds).
 * Prints the figures and writes them to docs/benchmarks.md (its own section; `--no-doc` does not).
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import robotsParserExport from 'robots-parser';
import { parseRobots, ROBOTS_COST, ROBOTS_MAX_BYTES } from '../../crawler/politeness/robots.ts';
import { COSTLY_ROBOTS, longPaths } from '../../test-support/costly-robots.ts';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';

const DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'benchmarks.md');
const MARKERS = { start: '<!-- robots:start -->', end: '<!-- robots:end -->' } as const;
const ORIGIN = 'http://bench.test';
const UA = 'LanternBot/0.1.0';
const COMPILE_RUNS = 7;
const CHECK_ROUNDS = 20;

const robotsParser = robotsParserExport as unknown as (url: string, body: string) => { isAllowed(url: string, ua: string): boolean | undefined };

/** Paths of 2,000 characters of several shapes: 60 in all. */
const PATHS = [...longPaths('/a/', 20), ...longPaths('/p/', 20), ...longPaths('/', 10), ...longPaths('/', 10, 'b')];

const ms = (ns: bigint) => Number(ns) / 1e6;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

interface Row {
  name: string;
  why: string;
  bytes: number;
  rules: number;
  compileMin: number;
  compileMedian: number;
  verdicts: string;
  stepsMax: number;
  checkP50Us: number;
  checkMaxUs: number;
  beforeMs: number | null;
}

function measure(name: string, why: string, body: string, before: boolean): Row {
  const bytes = Buffer.byteLength(body);
  if (bytes > ROBOTS_MAX_BYTES) throw new Error(`robots-bench: ${name} is ${bytes} bytes, over the ${ROBOTS_MAX_BYTES} a crawler reads`);
  const compile: number[] = [];
  let rules = parseRobots(`${ORIGIN}/robots.txt`, body, UA);
  for (let i = 0; i < COMPILE_RUNS; i++) {
    const t = process.hrtime.bigint();
    rules = parseRobots(`${ORIGIN}/robots.txt`, body, UA);
    compile.push(ms(process.hrtime.bigint() - t));
  }
  const urls = PATHS.map((p) => ORIGIN + p);
  for (const url of urls) rules.check(url); // warm
  const times: number[] = [];
  const kinds = new Map<string, number>();
  let stepsMax = 0;
  for (let round = 0; round < CHECK_ROUNDS; round++) {
    for (const url of urls) {
      const t = process.hrtime.bigint();
      const result = rules.check(url);
      times.push(ms(process.hrtime.bigint() - t) * 1000);
      stepsMax = Math.max(stepsMax, result.steps);
      if (round === 0) kinds.set(result.kind, (kinds.get(result.kind) ?? 0) + 1);
    }
  }
  let beforeMs: number | null = null;
  if (before) {
    const oracle = robotsParser(`${ORIGIN}/robots.txt`, body);
    const t = process.hrtime.bigint();
    oracle.isAllowed(urls[0], UA);
    beforeMs = ms(process.hrtime.bigint() - t);
  }
  const c = sorted(compile);
  const t = sorted(times);
  return {
    name, why, bytes, rules: rules.ruleCount, compileMin: c[0], compileMedian: c[c.length >> 1],
    verdicts: [...kinds].map(([k, n]) => `${n} ${k}`).join(', '), stepsMax: Math.ceil(stepsMax),
    checkP50Us: t[t.length >> 1], checkMaxUs: t[t.length - 1], beforeMs,
  };
}

const before = !process.argv.includes('--no-before');
const rows: Row[] = [];
for (const [name, { why, body }] of Object.entries(COSTLY_ROBOTS)) {
  const row = measure(name, why, body(), before);
  rows.push(row);
  console.log(`${name.padEnd(12)} ${String(row.bytes).padStart(7)} B  ${String(row.rules).padStart(6)} rules  compile ${fmt(row.compileMin)}/${fmt(row.compileMedian)} ms  ` +
    `check p50 ${fmt(row.checkP50Us)} µs max ${fmt(row.checkMaxUs)} µs  steps ≤ ${row.stepsMax}  (${row.verdicts})` +
    (row.beforeMs === null ? '' : `  robots-parser ${fmt(row.beforeMs)} ms`));
}

const m = machineInfo();
const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const body = [
  '## robots.txt (`npm run bench:robots`)',
  '',
  `Measured ${when} UTC on ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.platform}; load average ${load} (a shared machine: times are wall-clock and include other people's work, steps do not).`,
  '',
  `Each file is read and compiled ${COMPILE_RUNS} times (min / median), then checked against ${PATHS.length} paths of 2,000 characters, ${CHECK_ROUNDS} rounds after one warm-up round. ` +
    `Budget: ${ROBOTS_COST.checkSteps.toLocaleString('en-US')} steps per check (past it the file is unusable), ${ROBOTS_COST.turnSteps.toLocaleString('en-US')} per turn of a host.`,
  '',
  '| File | Bytes | Rules (distinct) | Read + compile, ms (min / median) | Check p50 / max, µs | Steps per check, max | Verdicts | robots-parser, one check |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.name}: ${r.why} | ${r.bytes.toLocaleString('en-US')} | ${r.rules.toLocaleString('en-US')} | ${fmt(r.compileMin)} / ${fmt(r.compileMedian)} | ` +
    `${fmt(r.checkP50Us)} / ${fmt(r.checkMaxUs)} | ${r.stepsMax.toLocaleString('en-US')} | ${r.verdicts} | ${r.beforeMs === null ? '–' : `${fmt(r.beforeMs)} ms`} |`),
].join('\n');
if (!process.argv.includes('--no-doc')) {
  writeSection(DOC, MARKERS, body);
  console.log(`wrote ${path.relative(process.cwd(), DOC)}`);
}
