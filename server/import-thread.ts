/**
 * The worker thread that reads one import file (capture/import-runner.ts starts it with a heap cap and a time
 * cap, and ends it when it passes either): it says it has started, plans the import (format, entries
 * up to the limit, judged URLs: import-plan.ts) and posts the plan back. Wiring only; the reading is
 * capture/import-plan.ts's. Bundled on its own by `npm run build:app` (dist/server/import-thread.js:
 * beside main.js, so that shared/project-root.ts finds the project from it as from main.js).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { planImport } from './capture/import-plan.ts';
import type { ImportThreadInput, ImportThreadMessage } from './capture/import-thread-protocol.ts';

const input = workerData as ImportThreadInput;
const post = (message: ImportThreadMessage): void => parentPort?.postMessage(message);

post({ type: 'started' });
// A test's hold: the thread stays here (busy, as a long parse would be) until the test lets it go.
if (input.gate !== undefined) Atomics.wait(input.gate, 0, 0);
const plan = planImport(input.file, {
  allowPrivate: input.allowPrivate,
  extraLabels: input.extraLabels,
  maxEntries: input.maxEntries,
});
if (input.gate !== undefined) Atomics.store(input.gate, 1, 1);
post({ type: 'done', plan });
