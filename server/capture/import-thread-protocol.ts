/** What import-runner.ts and its thread (server/import-thread.ts) send each other. */
import type { ImportPlan } from './import-plan.ts';

/** The thread's workerData: the file and how to judge it. */
export interface ImportThreadInput {
  file: string;
  allowPrivate: boolean;
  extraLabels: string[];
  maxEntries: number;
  /**
   * For tests: two shared cells. The thread waits after 'started', before reading, while cell 0 is 0;
   * it sets cell 1 to 1 once it has read the file.
   */
  gate?: Int32Array;
}

/** The thread's messages: it has begun reading, then its plan. */
export type ImportThreadMessage = { type: 'started' } | { type: 'done'; plan: ImportPlan };
