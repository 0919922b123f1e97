import type { Status } from '../api.ts';
import { formatClock, formatDateTime } from '../format.ts';

/** `text` as a sentence: its first letter capital, a full stop unless it ends with one (or `?`, `!`). */
function sentence(text: string): string {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.?!]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * Says that the database refuses Lantern (`/api/status` storage): on PostgreSQL "Database unreachable since
 * 03:00:00", what is wrong, what goes on meanwhile (the crawl paused, search from this server's copy) and what
 * to do; on SQLite a full disk or read-only file. Shown as the disk pause is (a status, not an alarm: Lantern
 * waits it out by itself), and gone once the server reports the database answers again.
 */
export function StorageNotice({ storage }: { storage: Status['storage'] | undefined }) {
  if (storage === undefined || storage === null) return null;
  const since = Date.parse(storage.since);
  return (
    <p className="notice warn storage-outage" role="status">
      <strong>{storage.reachable ? 'Database refuses writes' : 'Database unreachable'}</strong> since{' '}
      <time dateTime={storage.since} title={formatDateTime(storage.since)}>
        {Number.isNaN(since) ? storage.since : formatClock(since)}
      </time>
      : {sentence(storage.reason)} {sentence(storage.effect)} {sentence(storage.action)}
    </p>
  );
}
