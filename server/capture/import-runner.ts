/**
 * Reads an import file in a worker thread (server/import-thread.ts), so that a large or hostile file costs the
 * server bounded time and memory and never its event loop: `/api/health`, searches and the rest of the
 * API keep answering while it is read. The thread gets a V8 heap cap (`resourceLimits`) and a time cap,
 * and is ended when it passes either; the caller gets an ImportLimitError naming what was passed (the
 * route answers it as a 4xx). One file at a time: the others wait their turn. I/O wiring (threads,
 * timers); the reading itself is import-plan.ts's.
 */
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { processEntry, projectPath, RUNS_BUILT } from '../../shared/project-root.ts';
import type { ImportPlan } from './import-plan.ts';
import type { ImportThreadInput, ImportThreadMessage } from './import-thread-protocol.ts';

/** The caps of one import's thread. */
export interface ImportLimits {
  /** Longest a file may take to read, the thread's start included. */
  timeoutMs: number;
  /** The thread's V8 heap (old generation), MiB: the file, its entries and the plan live there. */
  heapMb: number;
}

/**
 * The caps in force: 60 s and 512 MiB. The largest accepted file (32 MiB of text, 50,000 bookmarks with
 * favicons) was read in a thread with 192 MiB and not with 128 MiB; it took 14 s from the sources (tsx)
 * on the 2-core machine under load.
 */
export const IMPORT_LIMITS: ImportLimits = { timeoutMs: 60_000, heapMb: 512 };

/** Why a file's reading was stopped: it took longer than the time cap, or needed more memory than the heap cap. */
export class ImportLimitError extends Error {
  constructor(
    readonly code: 'import-timeout' | 'import-memory',
    message: string,
  ) {
    super(message);
    this.name = 'ImportLimitError';
  }
}

/**
 * What tests may see and hold: `events` emits 'started' when a thread has begun reading a file and
 * 'finished' when its reading ended (plan or failure); `gate`, when set, makes the thread wait before
 * reading until the test stores 1 in its cell 0 and notifies, and the thread sets its cell 1 once it
 * has read the file; `limits` replaces IMPORT_LIMITS.
 */
export const importHooks: { events: EventEmitter; gate?: Int32Array; limits?: ImportLimits } = {
  events: new EventEmitter(),
};

/** The thread's entry: its bundle when built, else its source started through ts-thread.mjs (tsx). */
function threadEntry(): { file: string; entry?: string } {
  const entry = processEntry('server/import-thread.ts');
  return RUNS_BUILT ? { file: entry } : { file: projectPath('server/ts-thread.mjs'), entry: pathToFileURL(entry).href };
}

let queue: Promise<unknown> = Promise.resolve();

/** Plans an import of `file` in a thread of its own, one file at a time; throws ImportLimitError past a cap. */
export function planImportInThread(
  file: string,
  opts: { allowPrivate: boolean; extraLabels: string[]; maxEntries: number },
): Promise<ImportPlan> {
  const run = queue.then(() =>
    runThread({ file, ...opts, gate: importHooks.gate }, importHooks.limits ?? IMPORT_LIMITS),
  );
  queue = run.catch(() => undefined); // the next file waits for this one, whatever became of it
  return run;
}

function runThread(input: ImportThreadInput, limits: ImportLimits): Promise<ImportPlan> {
  return new Promise((resolve, reject) => {
    const { file, entry } = threadEntry();
    const thread = new Worker(file, {
      workerData: { ...input, entry },
      execArgv: [], // not the process's own (ts-thread.mjs registers tsx itself when it is needed)
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    let settled = false;
    const finish = (err: Error | null, plan?: ImportPlan): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void thread.terminate();
      importHooks.events.emit('finished');
      if (err) reject(err);
      else resolve(plan!);
    };
    const timer = setTimeout(
      () =>
        finish(
          new ImportLimitError(
            'import-timeout',
            `import: the file took longer than ${limits.timeoutMs / 1000} s to read; stopped, nothing stored: split it into smaller files`,
          ),
        ),
      limits.timeoutMs,
    );
    thread.on('message', (message: ImportThreadMessage) => {
      if (message.type === 'started') importHooks.events.emit('started');
      else finish(null, message.plan);
    });
    thread.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        finish(
          new ImportLimitError(
            'import-memory',
            `import: the file needed more than ${limits.heapMb} MiB of memory to read; stopped, nothing stored: split it into smaller files`,
          ),
        );
      } else finish(new Error(`import-runner: the import thread failed: ${err.name}: ${err.message}`));
    });
    thread.on('exit', (code) =>
      finish(new Error(`import-runner: the import thread stopped (exit code ${code}) before it answered`)),
    );
  });
}
