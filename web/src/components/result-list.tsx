import { useState } from 'react';
import type { SearchResult } from '../api.ts';
import { ResultItem } from './result-item.tsx';

/** Props of a page of results. */
export interface ResultListProps {
  results: SearchResult[];
  /** 1-based number of the first result (for the list's numbering). */
  start: number;
  moreHref: (result: SearchResult) => string;
  storedHref: (result: SearchResult) => string;
}

/** One entry of the list as shown: a result, and whether it is folded under its site's shown ones. */
interface Shown {
  result: SearchResult;
  index: number;
  foldedUnder: string | null;
  /** On the last shown result of a site with folded ones: how many fold under it. */
  folds: number;
}

/**
 * Orders a page of results for display: each site's folded results (SearchResult.folded, the API's
 * decision) move right after that site's last shown result, which carries the count. Pure.
 */
export function arrangeResults(results: readonly SearchResult[]): Shown[] {
  const foldedByHost = new Map<string, Array<{ result: SearchResult; index: number }>>();
  results.forEach((result, index) => {
    if (!result.folded) return;
    const list = foldedByHost.get(result.host) ?? [];
    list.push({ result, index });
    foldedByHost.set(result.host, list);
  });
  const lastShown = new Map<string, number>();
  results.forEach((r, i) => {
    if (!r.folded) lastShown.set(r.host, i);
  });
  const out: Shown[] = [];
  results.forEach((result, index) => {
    if (result.folded && lastShown.has(result.host)) return;
    const folded = !result.folded && lastShown.get(result.host) === index ? (foldedByHost.get(result.host) ?? []) : [];
    out.push({ result, index, foldedUnder: null, folds: folded.length });
    for (const f of folded) out.push({ result: f.result, index: f.index, foldedUnder: result.host, folds: 0 });
  });
  return out;
}

/**
 * A page of results as a list a person can scan: a site's third and later results are folded under
 * its best two, behind a "N more from this site" button that shows them in place (they stay in the
 * list, hidden, so the page still holds every result).
 */
export function ResultList({ results, start, moreHref, storedHref }: ResultListProps) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const shown = arrangeResults(results);
  const toggle = (host: string): void =>
    setOpen((old) => {
      const next = new Set(old);
      if (next.has(host)) next.delete(host);
      else next.add(host);
      return next;
    });
  const foldId = (host: string) => `fold-${host.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  return (
    <ol className="results" start={start}>
      {shown.map(({ result, index, foldedUnder, folds }) => (
        <ResultItem
          key={result.url}
          result={result}
          moreHref={moreHref(result)}
          storedHref={storedHref(result)}
          hidden={foldedUnder !== null && !open.has(foldedUnder)}
          className={foldedUnder !== null ? 'result folded' : undefined}
          id={foldedUnder !== null ? `${foldId(foldedUnder)}-${index}` : undefined}
          fold={
            folds > 0
              ? {
                  count: folds,
                  open: open.has(result.host),
                  controls: shown
                    .filter((s) => s.foldedUnder === result.host)
                    .map((s) => `${foldId(result.host)}-${s.index}`)
                    .join(' '),
                  onToggle: () => toggle(result.host),
                }
              : undefined
          }
        />
      ))}
    </ol>
  );
}
