import { useState } from 'react';
import type { Seed } from '../api.ts';
import { formatAgo, formatCount, formatCountdown, formatDateTime, plural } from '../format.ts';
import { LabelEditor } from './label-editor.tsx';
import { SeedProgress, seedPhase } from './seed-progress.tsx';

const SCOPE_TEXT: Record<Seed['scope'], string> = { path: 'this path', host: 'host', domain: 'domain', any: 'any' };

/** Props of the seed table. */
export interface SeedTableProps {
  seeds: Seed[];
  now: number;
  /** Ids of the seeds selected for a bulk action. */
  selected: ReadonlySet<number>;
  onSelect: (ids: number[], selected: boolean) => void;
  /** Submits the seed again, so that everything it found is checked for changes. */
  onCrawlAgain: (seed: Seed) => void;
  /** Removes the seed (asked once the person confirmed). */
  onRemove: (seed: Seed) => void;
  /** The seed whose request is on its way (its buttons are disabled meanwhile). */
  pendingId: Seed['id'] | null;
  /** A seed's labels were changed in its row (LabelEditor). */
  onLabelsChanged?: () => void;
}

/**
 * One page of seeds as compact rows: a box to select it, the bookmark's title first with its URL beneath
 * and its labels (one button opens the label editor in place), its crawl (state, counts, why it failed),
 * depth, scope, pages fetched, when it was crawled, and "Remove" (asked first, in the row) and, once its
 * crawl is done, "Crawl again". Explicit table roles keep it a table for screen readers whatever CSS does
 * to it on a phone (where depth, scope, fetched and crawled give way, and each row stays a row).
 */
export function SeedTable({
  seeds,
  now,
  selected,
  onSelect,
  onCrawlAgain,
  onRemove,
  pendingId,
  onLabelsChanged,
}: SeedTableProps) {
  /** The seed whose removal is being confirmed, and the one whose labels are being edited, if any. */
  const [confirming, setConfirming] = useState<Seed['id'] | null>(null);
  const [editing, setEditing] = useState<Seed['id'] | null>(null);
  const allSelected = seeds.length > 0 && seeds.every((s) => selected.has(s.id));
  return (
    <div className="table-wrap seed-table-wrap">
      <table className="data-table seed-table" role="table" aria-labelledby="seed-table-caption">
        <caption id="seed-table-caption" className="visually-hidden">
          Seeds and their crawl progress
        </caption>
        <thead role="rowgroup">
          <tr role="row">
            <th scope="col" role="columnheader" className="select-cell">
              <input
                type="checkbox"
                aria-label="Select every seed on this page"
                checked={allSelected}
                onChange={(event) =>
                  onSelect(
                    seeds.map((s) => s.id),
                    event.target.checked,
                  )
                }
              />
            </th>
            <th scope="col" role="columnheader">
              Seed
            </th>
            <th scope="col" role="columnheader">
              Progress
            </th>
            <th scope="col" role="columnheader" className="num wide-only">
              Depth
            </th>
            <th scope="col" role="columnheader" className="wide-only">
              Scope
            </th>
            <th scope="col" role="columnheader" className="num wide-only">
              Fetched
            </th>
            <th scope="col" role="columnheader" className="wide-only">
              Crawled
            </th>
            <th scope="col" role="columnheader">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody role="rowgroup">
          {seeds.map((seed) => (
            <tr key={seed.id} role="row" className={selected.has(seed.id) ? 'selected' : undefined}>
              <td role="cell" className="select-cell">
                <input
                  type="checkbox"
                  aria-label={`Select ${seed.title ?? seed.url}`}
                  checked={selected.has(seed.id)}
                  onChange={(event) => onSelect([seed.id], event.target.checked)}
                />
              </td>
              <th scope="row" role="rowheader" className="seed-cell">
                {seed.title ? (
                  <span className="seed-name">
                    <bdi>{seed.title}</bdi>
                  </span>
                ) : null}
                <a href={seed.url} rel="noopener noreferrer" className={seed.title ? 'seed-url' : 'seed-url seed-name'}>
                  {seed.url}
                </a>
                {editing === seed.id ? (
                  <LabelEditor seed={seed} onChanged={() => onLabelsChanged?.()} onDone={() => setEditing(null)} />
                ) : (
                  <span className="seed-labels">
                    {seed.labels.length > 0 ? (
                      <ul className="labels" aria-label={`Labels of ${seed.url}`}>
                        {seed.labels.map((label) => (
                          <li key={label} className="label-chip">
                            {label}
                          </li>
                        ))}
                      </ul>
                    ) : null}
                    <button
                      type="button"
                      className="label-button"
                      aria-label={`Edit labels of ${seed.url}`}
                      onClick={() => setEditing(seed.id)}
                    >
                      {seed.labels.length === 0 ? '+ label' : 'edit'}
                    </button>
                  </span>
                )}
              </th>
              <td role="cell" className="progress-cell">
                <SeedProgress seed={seed} />
              </td>
              <td role="cell" className="num wide-only">
                {seed.depth}
              </td>
              <td role="cell" className="wide-only">
                {SCOPE_TEXT[seed.scope] ?? seed.scope}
              </td>
              <td role="cell" className="num wide-only">
                {formatCount(seed.fetched)}
              </td>
              <td role="cell" className="nowrap wide-only">
                <time dateTime={seed.lastCrawledAt ?? undefined} title={formatDateTime(seed.lastCrawledAt)}>
                  {seed.lastCrawledAt === null ? 'not yet' : formatAgo(seed.lastCrawledAt, now)}
                </time>
                {seed.nextCrawlAt !== null && (
                  <span className="cell-note" title={`crawled again on its own on ${formatDateTime(seed.nextCrawlAt)}`}>
                    next {formatCountdown(seed.nextCrawlAt, now)}
                  </span>
                )}
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
                      className="button small danger"
                      disabled={pendingId === seed.id}
                      onClick={() => {
                        setConfirming(null);
                        onRemove(seed);
                      }}
                    >
                      Remove
                    </button>
                    <button type="button" className="button small" autoFocus onClick={() => setConfirming(null)}>
                      Keep
                    </button>
                  </div>
                ) : (
                  <div className="row-actions">
                    {seedPhase(seed) === 'done' || seedPhase(seed) === 'failed' ? (
                      <button
                        type="button"
                        className="button small"
                        aria-label={`Crawl ${seed.url} again`}
                        disabled={pendingId === seed.id}
                        onClick={() => onCrawlAgain(seed)}
                      >
                        Crawl again
                      </button>
                    ) : null}
                    <button
                      type="button"
                      className="button small"
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
