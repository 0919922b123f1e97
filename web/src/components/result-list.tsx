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

/**
 * A page of results as a list a person can scan, in the order the API dealt them: at most two of a
 * site while other sites' results fill the page (SearchResult.moreFromSite marks where "More from
 * this site" leads to the rest of a site's results, its site: search). Nothing is hidden, so Back
 * finds the page exactly as it was left.
 */
export function ResultList({ results, start, moreHref, storedHref }: ResultListProps) {
  return (
    <ol className="results" start={start}>
      {results.map((result) => (
        <ResultItem key={result.url} result={result} moreHref={moreHref(result)} storedHref={storedHref(result)} />
      ))}
    </ol>
  );
}
