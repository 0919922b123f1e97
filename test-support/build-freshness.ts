/**
 * Whether the build a test runs (`npm run build`: dist/ by esbuild, web/dist/ by Vite) is there and newer
 * than every source that goes into it. The browser tests refuse a stale build; server/main.test.ts builds
 * only then, so `npm test` (which builds first) never rewrites dist/ while the browser tests run from it.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One built file and the sources that go into it (folders, searched for .ts/.tsx/.css that are not tests, or files). */
export interface BuiltFile {
  built: string;
  sources: string[];
}

/**
 * The server's bundle (`npm run build:app`, whose esbuild flags are in package.json): the crawler's and the
 * PDF thread's bundles are built beside it.
 */
export const SERVER_BUILD: BuiltFile = {
  built: 'dist/server/main.js',
  sources: ['server', 'crawler', 'db', 'shared', 'package.json'],
};
/** The web app (`npm run build:web`). */
export const WEB_BUILD: BuiltFile = { built: 'web/dist/index.html', sources: ['web/src'] };

/** The newest modification time (ms) of a source (.ts, .tsx, .css, not a test) under `dir`, and that file. */
function newestSource(dir: string): { file: string; mtimeMs: number } {
  let newest = { file: '', mtimeMs: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const candidate = entry.isDirectory()
      ? newestSource(full)
      : /\.(tsx?|css)$/.test(entry.name) && !entry.name.endsWith('.test.ts')
        ? { file: full, mtimeMs: statSync(full).mtimeMs }
        : newest;
    if (candidate.mtimeMs > newest.mtimeMs) newest = candidate;
  }
  return newest;
}

/**
 * Why `build` cannot be run as it is (missing, or a source changed after it was built: it would test
 * yesterday's code), in a sentence naming the file; undefined when it is there and fresh.
 */
export function staleBuild(build: BuiltFile): string | undefined {
  const file = path.join(REPO_ROOT, build.built);
  if (!existsSync(file)) return `${build.built} is missing`;
  const builtAt = statSync(file).mtimeMs;
  for (const source of build.sources) {
    const full = path.join(REPO_ROOT, source);
    const newest = statSync(full).isDirectory() ? newestSource(full) : { file: full, mtimeMs: statSync(full).mtimeMs };
    if (newest.mtimeMs > builtAt)
      return `${path.relative(REPO_ROOT, newest.file)} changed after ${build.built} was built`;
  }
  return undefined;
}
