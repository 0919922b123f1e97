/**
 * The crawl's disk budget: the free space DATA_DIR's file system keeps (CRAWL_MIN_FREE_DISK) and the
 * most the database may hold (CRAWL_MAX_DB_SIZE). Past either, the crawl pauses (nothing new is queued
 * or stored; what is stored stays searchable) and resumes by itself once there is room again. It resumes
 * only with a margin (RESUME_MARGIN of the bound) to spare, so a crawl at the edge does not pause and
 * resume at every check. Pure: the readings come in (disk-watch.ts takes them at a bounded rate).
 */

/** What a check read: free bytes on DATA_DIR's file system (null when it could not be read) and the database's size. */
export interface DiskReading {
  freeBytes: number | null;
  dbBytes: number;
}

/** The bounds, in bytes; 0 is no bound. */
export interface DiskLimits {
  minFreeBytes: number;
  maxDbBytes: number;
}

/** Share of a bound that must be to spare before a paused crawl resumes. */
export const RESUME_MARGIN = 0.02;

/** The verdict of a check: over budget (with why, in words for a person) or not. */
export type DiskVerdict = { over: false } | { over: true; reason: string };

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** A size for a person: `812 MB`, `1.5 GB` (units of 1024, as the settings take them). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${Number(value.toFixed(digits))} ${UNITS[unit]}`;
}

/**
 * Judges a reading against the limits. `paused` says whether the crawl is paused now: then each bound
 * must have RESUME_MARGIN to spare for the verdict to be "not over". A free space that could not be read
 * is not judged (the database's size still is).
 */
export function judgeDisk(reading: DiskReading, limits: DiskLimits, paused: boolean, dataDir: string): DiskVerdict {
  const slack = paused ? RESUME_MARGIN : 0;
  const { freeBytes, dbBytes } = reading;
  if (limits.minFreeBytes > 0 && freeBytes !== null && freeBytes < limits.minFreeBytes * (1 + slack)) {
    return {
      over: true,
      reason:
        `only ${formatBytes(freeBytes)} free on the disk of ${dataDir} (CRAWL_MIN_FREE_DISK is ${formatBytes(limits.minFreeBytes)}): ` +
        'free some space, or lower CRAWL_MIN_FREE_DISK',
    };
  }
  if (limits.maxDbBytes > 0 && dbBytes > limits.maxDbBytes * (1 - slack)) {
    return {
      over: true,
      reason:
        `the database holds ${formatBytes(dbBytes)} (CRAWL_MAX_DB_SIZE is ${formatBytes(limits.maxDbBytes)}): ` +
        'remove a seed, or raise CRAWL_MAX_DB_SIZE',
    };
  }
  return { over: false };
}

/** What a paused crawl says, in the Domains header, /api/status and Seeds. */
export function pauseMessage(reason: string): string {
  return (
    `crawling is paused: ${reason}. Nothing new is queued or stored meanwhile; what is stored stays searchable, ` +
    'and the crawl resumes by itself once there is room'
  );
}
