/**
 * The one-way rule of Lantern's folders, as a check: every relative import must point down the layers
 * `e2e → bench → test-support → web → server → crawler → db → shared`, never up. The web app takes
 * types only from the folders below it (`import type`), so no server code is bundled into the
 * browser. Production files never import test support; a test (`*.test.ts`) beside its code may.
 * Packages kept for the benchmarks alone (BENCH_ONLY_PACKAGES, devDependencies) are imported only from bench/.
 * Inside crawler/ the sub-folders have floors of their own (CRAWLER_FLOORS), checked the same way.
 * `npm run lint` runs it (see checkLayers); its test shows it failing on a back edge.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The layers, lowest first: a file may import its own layer and those before it. */
export const LAYERS = ['shared', 'db', 'crawler', 'server', 'web', 'test-support', 'bench', 'e2e'] as const;
export type Layer = (typeof LAYERS)[number];

/** Layers whose files may be imported only with `import type` from the web app (nothing of them runs in the browser). */
const TYPE_ONLY_FOR_WEB: readonly Layer[] = ['shared', 'db', 'crawler', 'server'];

/** One import that breaks the rule, said for a person. */
export interface BackEdge {
  file: string;
  line: number;
  target: string;
  why: string;
}

/**
 * The floors inside crawler/: which of its sub-folders each sub-folder's files may import (besides their own).
 * `common/` is the floor (the IPC messages and the shapes they carry, the URL policy, the crawl job, charsets,
 * fetch failures) and imports none of them; `politeness/` (clocks, robots.txt, backoff) stands on it; the
 * primary's `frontier/` and the worker's `fetch/` and `extract/` stand on politeness; `coordination/`, the
 * primary's loop, on the frontier; `cluster/`, a crawler node's leases (issue 29), on coordination. `fetch/` and `extract/` never import each other: `crawler/job-runner.ts`
 * composes them. The files directly in crawler/ (the processes, job-runner.ts) and `integration/` (tests of the
 * whole cluster) may import every folder, and no folder imports them. A new sub-folder must be given its floor here.
 * Tests beside their code (`*.test.ts`) may import any sub-folder: a test may drive real neighbours together.
 */
export const CRAWLER_FLOORS: Readonly<Record<string, readonly string[]>> = {
  common: [],
  politeness: ['common'],
  frontier: ['common', 'politeness'],
  fetch: ['common', 'politeness'],
  extract: ['common', 'politeness'],
  coordination: ['common', 'politeness', 'frontier'],
  // A crawler node's leases (issue 29): pure rules, and the wiring that feeds them to the coordinator.
  cluster: ['common', 'politeness', 'frontier', 'coordination'],
};

/**
 * Imports that break CRAWLER_FLOORS and are allowed for now, each named with its reason. Remove an entry when
 * its reason is gone; the lint then keeps the edge from coming back.
 */
export const CRAWLER_FLOOR_EXCEPTIONS: readonly { file: string; target: string; why: string }[] = [];

/** Where a crawler/ file stands: its sub-folder, or '' for the files directly in crawler/. */
function crawlerFolder(relPath: string): string {
  const parts = relPath.split('/');
  return parts.length > 2 ? parts[1] : '';
}

/**
 * Why an import from one crawler/ file of `relPath` of `target` breaks the crawler's floors, or undefined when
 * it does not (both repository-relative, both under crawler/).
 */
export function crawlerFloorBreach(relPath: string, target: string): string | undefined {
  const from = crawlerFolder(relPath);
  const to = crawlerFolder(target);
  if (from === to || from === '' || from === 'integration') return undefined;
  if (/\.test\.tsx?$/.test(relPath)) return undefined;
  if (CRAWLER_FLOOR_EXCEPTIONS.some((e) => e.file === relPath && e.target === target)) return undefined;
  const allowed = CRAWLER_FLOORS[from];
  if (allowed === undefined) {
    return `crawler/${from}/ has no floor: add it to CRAWLER_FLOORS in test-support/layers.ts, with the folders it may import`;
  }
  if (to === '') {
    return `crawler/${from}/ may not import ${target}: the files directly in crawler/ compose the sub-folders, none imports them`;
  }
  if (allowed.includes(to)) return undefined;
  const may = allowed.length === 0 ? 'no other crawler folder' : allowed.map((f) => `${f}/`).join(', ');
  return `crawler/${from}/ may not import crawler/${to}/: it stands on ${may} (CRAWLER_FLOORS in test-support/layers.ts)`;
}

/** The layer a repository-relative path belongs to, or undefined for files outside them (root configs). */
export function layerOf(relPath: string): Layer | undefined {
  const [top, second] = relPath.split('/');
  if (top === 'web') return second === 'src' || second === 'vite.config.ts' ? 'web' : undefined;
  return (LAYERS as readonly string[]).includes(top) ? (top as Layer) : undefined;
}

/** devDependencies only the benchmarks may import: crawlee, for bench:crawl's side-by-side (issue 15). */
const BENCH_ONLY_PACKAGES = /^(crawlee|@crawlee\/[^/]+)(\/|$)/;
const PACKAGE_IMPORT =
  /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?'([^.'][^']*)'|import\(\s*'([^.'][^']*)'\s*\)/gm;

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?'(\.{1,2}\/[^']*)'/gm;
const DYNAMIC = /import\(\s*'(\.{1,2}\/[^']*)'\s*\)/g;

/**
 * The back edges in one file's text (`relPath` relative to the repository root): imports of a higher
 * layer, value imports the web app may not make, test support imported by production code, and, inside
 * crawler/, imports of a sub-folder its floor does not stand on (crawlerFloorBreach).
 */
export function backEdgesIn(relPath: string, text: string): BackEdge[] {
  const from = layerOf(relPath);
  if (from === undefined) return [];
  const isTest = /\.test\.tsx?$/.test(relPath);
  const edges: BackEdge[] = [];
  const check = (spec: string, typeOnly: boolean, index: number): void => {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(relPath), spec));
    const to = layerOf(target);
    if (to === undefined) return;
    if (to === from) {
      const breach = from === 'crawler' ? crawlerFloorBreach(relPath, target) : undefined;
      if (breach) edges.push({ file: relPath, line: text.slice(0, index).split('\n').length, target, why: breach });
      return;
    }
    const line = text.slice(0, index).split('\n').length;
    const fromRank = LAYERS.indexOf(from);
    const toRank = LAYERS.indexOf(to);
    let why: string | undefined;
    if (to === 'test-support' && fromRank < toRank) {
      if (!isTest) why = `production code in ${from}/ may not import test support; only a *.test.ts may`;
    } else if (toRank > fromRank) {
      why = `${from}/ is below ${to}/: it may not import it (the layers run ${LAYERS.slice().reverse().join(' → ')})`;
    } else if (from === 'web' && TYPE_ONLY_FOR_WEB.includes(to) && !typeOnly) {
      why = `the web app takes only types from ${to}/: write \`import type\``;
    } else if (from === 'e2e' && to === 'bench') {
      why = 'browser tests may not import the benchmarks';
    }
    if (why) edges.push({ file: relPath, line, target, why });
  };
  for (const m of text.matchAll(PACKAGE_IMPORT)) {
    const pkg = m[1] ?? m[2];
    if (from !== 'bench' && BENCH_ONLY_PACKAGES.test(pkg)) {
      const line = text.slice(0, m.index ?? 0).split('\n').length;
      edges.push({
        file: relPath,
        line,
        target: pkg,
        why: `${pkg} is a devDependency of the benchmarks: only bench/ may import it`,
      });
    }
  }
  for (const m of text.matchAll(IMPORT)) check(m[3], m[2] !== undefined, m.index ?? 0);
  for (const m of text.matchAll(DYNAMIC)) check(m[1], false, m.index ?? 0);
  return edges;
}

/** Every .ts/.tsx file under `dir` (skipping node_modules, dist and dot folders), relative to `root`. */
function sourceFiles(root: string, dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(root, dir))) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const rel = dir === '' ? name : `${dir}/${name}`;
    if (statSync(path.join(root, rel)).isDirectory()) sourceFiles(root, rel, out);
    else if (/\.tsx?$/.test(name)) out.push(rel);
  }
  return out;
}

/** The back edges of the whole repository at `root`. */
export function checkLayers(root: string): BackEdge[] {
  const edges: BackEdge[] = [];
  for (const top of ['shared', 'db', 'crawler', 'server', 'web', 'test-support', 'bench', 'e2e']) {
    for (const rel of sourceFiles(root, top))
      edges.push(...backEdgesIn(rel, readFileSync(path.join(root, rel), 'utf8')));
  }
  return edges;
}

// `node --import tsx test-support/layers.ts`: prints the back edges and exits 1 if there are any.
if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const edges = checkLayers(root);
  for (const e of edges) process.stderr.write(`layers: ${e.file}:${e.line} imports ${e.target}: ${e.why}\n`);
  if (edges.length > 0) process.exit(1);
  process.stdout.write('layers: every import points down the layers\n');
}
