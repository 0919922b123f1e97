import { useState } from 'react';
import type { Seed } from '../api.ts';
import { formatAgo, formatCount, formatCountdown, formatDateTime, plural } from '../format.ts';
import { LabelEditor } from './label-editor.tsx';
import { SeedHosts } from './seed-hosts.tsx';
import { SeedProgress, seedPhase } from './seed-progress.tsx';

const SCOPE_TEXT: Record<Seed['scope'], string> = { path: 'this path', host: 'host', domain: 'domain', any: 'any' };

/**
 * The seed list as a table (URL, progress, depth, scope, found, hosts, fetched, queued, failed, when it
 * was last crawled and will be again on its own, added, and "Remove" and, once its crawl is done, "Crawl
 * again" buttons; removing asks first, in the row): scrolling sideways when a little narrow, and one card
 * per seed on a phone (CSS).
 * The explicit table roles keep it a table for screen readers when CSS changes its display.
 */
export function SeedTable({
  seeds,
  now,
  onCrawlAgain,
  onRemove,
  pendingId,
  onLabelsChanged,
}: {
  seeds: Seed[];
  now: number;
  /** Submits the seed again, so that everything it found is checked for changes. */
  onCrawlAgain: (seed: Seed) => void;
  /** Removes the seed (asked once the person confirmed). */
  onRemove: (seed: Seed) => void;
  /** The seed whose request is on its way (its buttons are disabled meanwhile). */
  pendingId: Seed['id'] | null;
  /** A seed's labels were changed in its row (LabelEditor). */
  onLabelsChanged?: () => void;
}) {
  /** The seed whose removal is being confirmed, if any. */
  const [confirming, setConfirming] = useState<Seed['id'] | null>(null);
  return (
    <div className="table-wrap" role="region" aria-labelledby="seed-table-caption" tabIndex={0}>
      <table className="data-table seed-table stack-table" role="table" aria-labelledby="seed-table-caption">
        <caption id="seed-table-caption" className="visually-hidden">
          Seeds and their crawl progress
        </caption>
        <thead role="rowgroup">
          <tr role="row">
            <th scope="col" role="columnheader">
              URL
            </th>
            <th scope="col" role="columnheader">
              Progress
            </th>
            <th scope="col" role="columnheader" className="num">
              Depth
            </th>
            <th scope="col" role="columnheader">
              Scope
            </th>
            <th scope="col" role="columnheader">
              Labels
            </th>
            <th scope="col" role="columnheader" className="num">
              Found
            </th>
            <th scope="col" role="columnheader" className="num">
              Hosts
            </th>
            <th scope="col" role="columnheader" className="num">
              Fetched
            </th>
            <th scope="col" role="columnheader" className="num">
              Queued
            </th>
            <th scope="col" role="columnheader" className="num">
              Failed
            </th>
            <th scope="col" role="columnheader">
              Crawled
            </th>
            <th scope="col" role="columnheader">
              Added
            </th>
            <th scope="col" role="columnheader">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody role="rowgroup">
          {seeds.map((seed) => (
            <tr key={seed.id} role="row">
              <th scope="row" role="rowheader" className="url-cell">
                <a href={seed.url} rel="noopener noreferrer">
                  {seed.url}
                </a>
              </th>
              <td role="cell" className="progress-cell" data-label="Progress">
                <SeedProgress seed={seed} />
              </td>
              <td role="cell" className="num" data-label="Depth">
                {seed.depth}
              </td>
              <td role="cell" data-label="Scope">
                {SCOPE_TEXT[seed.scope] ?? seed.scope}
              </td>
              <td role="cell" data-label="Labels">
                {seed.title ? <span className="cell-note seed-title">{seed.title}</span> : null}
                <LabelEditor seed={seed} onChanged={() => onLabelsChanged?.()} />
              </td>
              <td role="cell" className="num" data-label="Found">
                {formatCount(seed.found)}
              </td>
              <td role="cell" className="num" data-label="Hosts">
                <SeedHosts seed={seed} />
              </td>
              <td role="cell" className="num" data-label="Fetched">
                {formatCount(seed.fetched)}
              </td>
              <td role="cell" className="num" data-label="Queued">
                {formatCount(seed.queued)}
              </td>
              <td role="cell" className={seed.failed > 0 ? 'num warn-text' : 'num'} data-label="Failed">
                {formatCount(seed.failed)}
              </td>
              <td role="cell" className="nowrap" data-label="Crawled">
                <time dateTime={seed.lastCrawledAt ?? undefined} title={formatDateTime(seed.lastCrawledAt)}>
                  {seed.lastCrawledAt === null ? 'not yet' : formatAgo(seed.lastCrawledAt, now)}
                </time>
                {seed.nextCrawlAt !== null && (
                  <span className="cell-note" title={`crawled again on its own on ${formatDateTime(seed.nextCrawlAt)}`}>
                    next {formatCountdown(seed.nextCrawlAt, now)}
                  </span>
                )}
              </td>
              <td role="cell" className="nowrap" data-label="Added">
                <time dateTime={seed.createdAt} title={formatDateTime(seed.createdAt)}>
                  {formatAgo(seed.createdAt, now)}
                </time>
              </td>
              <td role="cell" className="action-cell">
                {confirming === seed.id ? (
                  <div
                    role="group"
                    aria-label={`Remove ${seed.url}?`}
                    className="confirm-group"
                    onKeyDown={(e) => {
                      if (e.key === 'Escape') setConfirming(null);
                    }}
                  >
                    <span className="confirm-text">Remove it and its {plural(seed.fetched, 'page')} from search?</span>
                    <button
                      type="button"
                      className="button danger"
                      disabled={pendingId === seed.id}
                      onClick={() => {
                        setConfirming(null);
                        onRemove(seed);
                      }}
                    >
                      Remove
                    </button>
                    <button type="button" className="button" autoFocus onClick={() => setConfirming(null)}>
                      Keep
                    </button>
                  </div>
                ) : (
                  <div className="row-actions">
                    {
                      seedPhase(seed) === 'done' ? (
                        <button
                          type="button"
                          className="button"
                          aria-label={`Crawl ${seed.url} again`}
                          disabled={pendingId === seed.id}
                          onClick={() => onCrawlAgain(seed)}
                        >
                          Crawl again
                        </button>
                      ) : null /* offered once a crawl is over: until then it is being crawled */
                    }
                    <button
                      type="button"
                      className="button"
                      aria-label={`Remove ${seed.url}`}
                      disabled={pendingId === seed.id}
                      onClick={() => setConfirming(seed.id)}
                    >
                      Remove
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
