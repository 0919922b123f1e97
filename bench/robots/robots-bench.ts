/**
 * `npm run bench:robots` — what the costliest robots.txt files we can build (test-support/costly-robots.ts)
 * cost the crawler, where it pays:
 * - the crawler worker reads and compiles the file (compileRobots), once per fetch: CPU time cold (the
 *   first file a fresh process reads, as a worker's rarely-run code is) and warm;
 * - the primary adopts the compiled form (JSON.parse of what crossed IPC, then robotsRules): CPU time,
 *   cold and warm, and the form's size;
 * - the primary checks each URL (a 2,000-character path): counted steps (exact, the same on every
 *   machine) and time, p50 and max over every check.
 * robots-parser, the crawler's matcher before, is timed on one check of each for comparison (`--no-before`
 * skips it: it takes seconds). Prints the figures and writes them to docs/benchmarks.md (its own section;
 * `--no-doc` does not). Cold figures come from a child process per file (this file with `--child`).
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import robotsParserExport from 'robots-parser';
import {
  compileRobots,
  robotsRules,
  ROBOTS_COST,
  ROBOTS_MAX_BYTES,
  type CompiledRobots,
} from '../../crawler/politeness/robots.ts';
import { COSTLY_ROBOTS, longPaths } from '../../test-support/costly-robots.ts';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';

const SELF = fileURLToPath(import.meta.url);
const DOC = path.join(path.dirname(SELF), '..', '..', 'docs', 'benchmarks.md');
const MARKERS = { start: '<!-- robots:start -->', end: '<!-- robots:end -->' } as const;
const ORIGIN = 'http://bench.test';
const ROBOTS_URL = `${ORIGIN}/robots.txt`;
const UA = 'LanternBot/0.1.0';
const WARM_RUNS = 7;
const CHECK_ROUNDS = 20;
const WORST_REPEATS = 200;

const robotsParser = robotsParserExport as unknown as (
  url: string,
  body: string,
) => { isAllowed(url: string, ua: string): boolean | undefined };

/** Paths of 2,000 characters of several shapes: 60 in all. */
const PATHS = [...longPaths('/a/', 20), ...longPaths('/p/', 20), ...longPaths('/', 10), ...longPaths('/', 10, 'b')];

const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** Compiles `body` as a worker does and adopts it as the primary does; CPU ms of each and the form's JSON. */
function compileAndAdopt(body: Buffer): { compileMs: number; adoptMs: number; json: string } {
  let since = process.cpuUsage();
  const json = JSON.stringify(compileRobots(ROBOTS_URL, body, UA));
  const compileMs = cpuMs(since);
  since = process.cpuUsage();
  robotsRules(ROBOTS_URL, JSON.parse(json) as CompiledRobots).check(`${ORIGIN}/`);
  return { compileMs, adoptMs: cpuMs(since), json };
}

if (process.argv[2] === '--child') {
  // Cold: the first file this process reads.
  const { compileMs, adoptMs } = compileAndAdopt(Buffer.from(COSTLY_ROBOTS[process.argv[3]].body()));
  process.stdout.write(JSON.stringify({ compileMs, adoptMs }));
  process.exit(0);
}

interface Row {
  name: string;
  why: string;
  bytes: number;
  rules: number;
  formBytes: number;
  cold: { compileMs: number; adoptMs: number };
  warmCompileMs: number;
  warmAdoptMs: number;
  verdicts: string;
  stepsMax: number;
  checkP50Us: number;
  checkMaxUs: number;
  cpuP50Us: number;
  cpuMaxUs: number;
  /** The costliest path's check, CPU µs: the mean of WORST_REPEATS checks in a row. */
  worstUs: number;
  beforeMs: number | null;
}

function measure(name: string, why: string, text: string, before: boolean): Row {
  const body = Buffer.from(text);
  if (body.length > ROBOTS_MAX_BYTES)
    throw new Error(`robots-bench: ${name} is ${body.length} bytes, over the ${ROBOTS_MAX_BYTES} a crawler reads`);
  const cold = JSON.parse(
    execFileSync(process.execPath, [...process.execArgv, SELF, '--child', name], { encoding: 'utf8' }),
  ) as Row['cold'];
  const compile: number[] = [];
  const adopt: number[] = [];
  let json = '';
  for (let i = 0; i < WARM_RUNS; i++) {
    const run = compileAndAdopt(body);
    compile.push(run.compileMs);
    adopt.push(run.adoptMs);
    json = run.json;
  }
  const rules = robotsRules(ROBOTS_URL, JSON.parse(json) as CompiledRobots);
  const urls = PATHS.map((p) => ORIGIN + p);
  for (const url of urls) rules.check(url); // warm
  const times: number[] = [];
  const cpus: number[] = [];
  const kinds = new Map<string, number>();
  let stepsMax = 0;
  let worstUrl = urls[0];
  for (let round = 0; round < CHECK_ROUNDS; round++) {
    for (const url of urls) {
      const since = process.cpuUsage();
      const t = process.hrtime.bigint();
      const result = rules.check(url);
      times.push(Number(process.hrtime.bigint() - t) / 1000);
      cpus.push(cpuMs(since) * 1000);
      if (result.steps > stepsMax) {
        stepsMax = result.steps;
        worstUrl = url;
      }
      if (round === 0) kinds.set(result.kind, (kinds.get(result.kind) ?? 0) + 1);
    }
  }
  const since = process.cpuUsage();
  for (let i = 0; i < WORST_REPEATS; i++) rules.check(worstUrl);
  const worstUs = (cpuMs(since) * 1000) / WORST_REPEATS;
  let beforeMs: number | null = null;
  if (before) {
    const t = process.hrtime.bigint();
    robotsParser(ROBOTS_URL, text).isAllowed(urls[0], UA);
    beforeMs = Number(process.hrtime.bigint() - t) / 1e6;
  }
  const t = sorted(times);
  const c = sorted(cpus);
  return {
    name,
    why,
    bytes: body.length,
    rules: rules.ruleCount,
    formBytes: json.length,
    cold,
    warmCompileMs: sorted(compile)[compile.length >> 1],
    warmAdoptMs: sorted(adopt)[adopt.length >> 1],
    verdicts: [...kinds].map(([k, n]) => `${n} ${k}`).join(', '),
    stepsMax: Math.ceil(stepsMax),
    checkP50Us: t[t.length >> 1],
    checkMaxUs: t[t.length - 1],
    cpuP50Us: c[c.length >> 1],
    cpuMaxUs: c[c.length - 1],
    worstUs,
    beforeMs,
  };
}

const before = !process.argv.includes('--no-before');
const rows: Row[] = [];
const loadAtStart = os.loadavg()[0];
for (const [name, { why, body }] of Object.entries(COSTLY_ROBOTS)) {
  const r = measure(name, why, body(), before);
  rows.push(r);
  console.log(
    `${name.padEnd(12)} ${String(r.bytes).padStart(7)} B ${String(r.rules).padStart(6)} rules | worker compile cold ${fmt(r.cold.compileMs)} warm ${fmt(r.warmCompileMs)} ms | ` +
      `primary adopt cold ${fmt(r.cold.adoptMs)} warm ${fmt(r.warmAdoptMs)} ms (${r.formBytes} B) | check CPU p50 ${fmt(r.cpuP50Us)} max ${fmt(r.cpuMaxUs)} µs, costliest ${fmt(r.worstUs)} µs, ` +
      `wall p50 ${fmt(r.checkP50Us)} max ${fmt(r.checkMaxUs)} µs, ≤ ${r.stepsMax} steps (${r.verdicts})` +
      (r.beforeMs === null ? '' : ` | robots-parser ${fmt(r.beforeMs)} ms`),
  );
}

const m = machineInfo();
const load = `${loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end`;
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const doc = [
  '## robots.txt (`npm run bench:robots`)',
  '',
  `Measured ${when} UTC on ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.platform}; load average ${load} ` +
    "(a machine shared with other test runs: CPU times are this process's own; wall-clock times include being descheduled, which is most of their maxima; steps are exact).",
  '',
  `The worker reads and compiles each file (CPU ms: cold = the first file a fresh process reads; warm = median of ${WARM_RUNS}); the primary adopts the compiled form it is sent ` +
    `(JSON.parse and robotsRules, CPU ms, cold and warm; the form's size in bytes), then checks ${PATHS.length} paths of 2,000 characters, ${CHECK_ROUNDS} rounds after one warm-up round ` +
    `(the maxima of single checks include garbage collection and, for wall-clock, being descheduled; the costliest path's check is also timed as the mean of ${WORST_REPEATS} in a row). ` +
    `Budgets: ${ROBOTS_COST.checkSteps.toLocaleString('en-US')} steps per check (past them the file is unusable), ${ROBOTS_COST.turnSteps.toLocaleString('en-US')} per turn of a host.`,
  '',
  '| File | Bytes | Rules (distinct) | Worker: read + compile, cold / warm ms | Primary: adopt, cold / warm ms (form bytes) | Check, CPU p50 / max µs | Costliest check, CPU µs | Check, wall p50 / max µs | Steps per check, max | Verdicts | robots-parser, one check |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.name}: ${r.why} | ${r.bytes.toLocaleString('en-US')} | ${r.rules.toLocaleString('en-US')} | ${fmt(r.cold.compileMs)} / ${fmt(r.warmCompileMs)} | ` +
      `${fmt(r.cold.adoptMs)} / ${fmt(r.warmAdoptMs)} (${r.formBytes.toLocaleString('en-US')}) | ${fmt(r.cpuP50Us)} / ${fmt(r.cpuMaxUs)} | ${fmt(r.worstUs)} | ${fmt(r.checkP50Us)} / ${fmt(r.checkMaxUs)} | ` +
      `${r.stepsMax.toLocaleString('en-US')} | ${r.verdicts} | ` +
      `${r.beforeMs === null ? '–' : `${fmt(r.beforeMs)} ms`} |`,
  ),
].join('\n');
if (!process.argv.includes('--no-doc')) {
  writeSection(DOC, MARKERS, doc);
  console.log(`wrote ${path.relative(process.cwd(), DOC)}`);
}
