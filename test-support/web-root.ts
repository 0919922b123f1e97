/**
 * A stand-in for the built web app (what `npm run build` puts in web/dist) for route tests: an
 * index.html and one asset, in a temporary folder the caller removes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The files of the stand-in, by URL path. */
export const WEB_ROOT_FILES = {
  '/index.html': '<!doctype html><title>Lantern</title><div id="root"></div>',
  '/assets/app.js': 'console.log("app")',
} as const;

/** Writes the stand-in web app; `remove()` deletes it. */
export function makeWebRoot(): { root: string; remove(): void } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lantern-web-'));
  for (const [file, text] of Object.entries(WEB_ROOT_FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
