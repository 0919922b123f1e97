import type { Status } from '../api.ts';
import { formatCount } from '../format.ts';
import { DiskNotice } from './crawl-pause-notice.tsx';
import { CrawlerNodeList, CrawlerNodesStat } from './crawler-nodes.tsx';
import { StorageNotice } from './storage-notice.tsx';

const CRAWLER_TEXT: Record<Status['crawler'], string> = {
  starting: 'starting',
  running: 'running',
  restarting: 'restarting',
  stopped: 'stopped',
};

/**
 * The crawler's state in a word: "paused" when it runs but waits for room on the disk or for its database (the
 * notices below say why), "idle" when it runs but no host has work (nothing queued or in flight).
 */
export function crawlerWord(status: Status): { word: string; tone: string } {
  if (status.crawler === 'running' && (status.disk?.paused === true || (status.storage ?? null) !== null))
    return { word: 'paused', tone: 'paused' };
  if (status.crawler === 'running' && status.queued === 0 && status.inFlight === 0)
    return { word: 'idle', tone: 'idle' };
  return { word: CRAWLER_TEXT[status.crawler] ?? status.crawler, tone: status.crawler };
}

/**
 * Crawl-wide numbers from `/api/status`: pages stored, queued, fetch rate, workers alive, crawler state,
 * on PostgreSQL the crawler nodes alive and each one's line (crawler-nodes.tsx), and the crawler's current problem in words (a crash it is restarting from), shown as an alert until the
 * crawler reports it over; the database refusing writes or out of reach (a full disk, PostgreSQL stopped) is
 * shown as a state, with its time (StorageNotice), not again as an alert. A running crawler with no worker is idle, not broken: workers
 * start when something is due and leave after a minute without work, which the header says.
 */
export function StatusHeader({ status }: { status: Status }) {
  return (
    <div className="status-header">
      <dl className="stats">
        <div className="stat">
          <dt>Pages stored</dt>
          <dd>{formatCount(status.pages)}</dd>
        </div>
        <div className="stat">
          <dt>Queued</dt>
          <dd>{formatCount(status.queued)}</dd>
        </div>
        <div className="stat">
          <dt>Fetch rate</dt>
          <dd>
            {formatCount(status.fetchRatePerMin)}
            <span className="unit"> / min</span>
          </dd>
        </div>
        <div className="stat">
          <dt>Workers alive</dt>
          <dd>
            {formatCount(status.workers)}
            {status.workers === 0 && status.crawler === 'running' ? (
              <span className="unit" title="Workers start when something is due and leave after a minute without work">
                {' '}
                (idle)
              </span>
            ) : null}
          </dd>
        </div>
        <div className="stat">
          <dt>Crawler</dt>
          <dd>
            <span className={`badge crawler crawler-${crawlerWord(status).tone}`}>
              <span className="badge-dot" aria-hidden="true" />
              {crawlerWord(status).word}
            </span>
          </dd>
        </div>
        {status.cluster ? <CrawlerNodesStat cluster={status.cluster} /> : null}
      </dl>
      {status.cluster ? <CrawlerNodeList cluster={status.cluster} /> : null}
      <DiskNotice disk={status.disk} />
      <StorageNotice storage={status.storage} />
      {status.lastError !== null && status.lastError !== status.storage?.message ? (
        <p className="notice error crawler-error" role="alert">
          <strong>Crawler problem:</strong> {status.lastError}
        </p>
      ) : null}
    </div>
  );
}
