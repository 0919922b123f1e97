import { useCallback } from 'react';
import { getStatus } from '../api.ts';
import type { Status } from '../api.ts';
import { usePoll } from '../use-poll.ts';
import { StorageNotice } from './storage-notice.tsx';

/** How often the Seeds view asks whether crawling is paused (the crawler checks its disk every 5 s). */
const POLL_MS = 5000;

/**
 * Says that crawling is paused for want of room (CRAWL_MIN_FREE_DISK, CRAWL_MAX_DB_SIZE) and why, in the
 * crawler's words (what is short, the setting, what to do); nothing while the crawl has room.
 */
export function DiskNotice({ disk }: { disk: Status['disk'] | undefined }) {
  if (disk === undefined || !disk.paused || disk.reason === null) return null;
  return (
    <p className="notice warn crawl-paused" role="status">
      {disk.reason.charAt(0).toUpperCase() + disk.reason.slice(1)}.
    </p>
  );
}

/**
 * The DiskNotice and StorageNotice of a view that does not poll `/api/status` itself (Seeds): asks every 5 s, so
 * that a person adding seeds while PostgreSQL is out of reach reads why they are refused.
 */
export function CrawlPauseNotice() {
  const status = usePoll(
    useCallback((signal: AbortSignal) => getStatus(signal), []),
    POLL_MS,
  );
  return (
    <>
      <DiskNotice disk={status.data?.disk} />
      <StorageNotice storage={status.data?.storage} />
    </>
  );
}
