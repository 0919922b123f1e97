// @ts-check
/**
 * Starts a worker thread whose entry is a TypeScript source, when Lantern runs from its sources (tests,
 * `node --import tsx`): a thread does not get the process's `--import tsx` loader in time for its own
 * entry file (Node 20 answers ERR_UNKNOWN_FILE_EXTENSION), so this plain JavaScript file registers
 * tsx in the thread and then imports the entry named in workerData.entry. The build (`npm start`)
 * never uses it: its threads start their own bundle (shared/project-root.ts, processEntry).
 */
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
