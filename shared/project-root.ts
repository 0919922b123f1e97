/**
 * Where Lantern's files are, whether it runs from its TypeScript sources (tests, `node --import tsx`) or
 * from the build `npm start` runs (`npm run build:app`: one JavaScript bundle per process in dist/,
 * dist/server/main.js, dist/crawler/primary.js, dist/crawler/worker.js). Code that reads a file of the
 * project (package.json, db/migrations, web/dist) or starts another of its processes asks here, so the
 * two layouts differ in one place only. Kept by hand, and why: a bundle's `import.meta.url` is the
 * bundle's, one folder deeper than the source file the code came from.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether this code runs from the build (a .js bundle) rather than from its .ts source. */
export const RUNS_BUILT = !import.meta.url.endsWith('.ts');

/**
 * The project's root folder (where package.json is): one folder up from this file's source
 * (shared/project-root.ts), two from a bundle (dist/<folder>/<name>.js).
 */
export const PROJECT_ROOT = fileURLToPath(new URL(RUNS_BUILT ? '../../' : '../', import.meta.url));

if (!existsSync(path.join(PROJECT_ROOT, 'package.json'))) {
  throw new Error(
    `project-root: no package.json in ${PROJECT_ROOT}; run Lantern from its folder, as \`npm start\` does (dist/ must stay inside it)`,
  );
}

/** A file or folder of the project, from its path relative to the root ('db/migrations'). */
export function projectPath(relative: string): string {
  return path.join(PROJECT_ROOT, relative);
}

/**
 * The file that runs another of Lantern's processes, named by its source ('crawler/worker.ts'): that
 * source itself when this process runs from sources (its loader, e.g. tsx, is passed on in execArgv),
 * else its bundle in dist/ ('dist/crawler/worker.js').
 */
export function processEntry(source: string): string {
  if (!source.endsWith('.ts'))
    throw new Error(`project-root: a process entry is named by its .ts source, not ${source}`);
  return RUNS_BUILT ? path.join(PROJECT_ROOT, 'dist', source.replace(/\.ts$/, '.js')) : path.join(PROJECT_ROOT, source);
}
