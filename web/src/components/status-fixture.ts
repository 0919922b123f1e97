/**
 * A crawler status as /api/status answers it while crawling on SQLite, for the component tests that render the
 * status header (a test fixture: no view imports it).
 */
import type { Status } from '../api.ts';

export const RUNNING_STATUS: Status = {
  pages: 120,
  indexed: 118,
  queued: 40,
  inFlight: 1,
  workers: 2,
  fetchRatePerMin: 300,
  crawler: 'running',
  searchReady: true,
  lastError: null,
  disk: {
    paused: false,
    reason: null,
    freeBytes: 5e10,
    dbBytes: 1e6,
    minFreeBytes: 1024 ** 3,
    maxDbBytes: 20 * 1024 ** 3,
    checkedAt: null,
  },
  storage: null,
  cluster: null,
};
