import type { SearchResult, SnippetPiece } from '../api.ts';
import { displayUrl, formatDate, formatDateTime } from '../format.ts';
import { Link } from './link.tsx';
import { ResultMarks } from './result-marks.tsx';

/** Text pieces as React text: matched words in `<mark>`, everything else plain. Crawled text is never markup. */
export function MarkedText({ pieces }: { pieces: readonly SnippetPiece[] }) {
  return <>{pieces.map((piece, index) => (piece.match ? <mark key={index}>{piece.text}</mark> : piece.text))}</>;
}

/** A result's snippet (see MarkedText). */
export function Snippet({ pieces }: { pieces: SnippetPiece[] }) {
  return (
    <p className="snippet">
      <MarkedText pieces={pieces} />
    </p>
  );
}

/** Props of one search result. */
export interface ResultItemProps {
  result: SearchResult;
  /** In-app href that searches this result's site for the same query. */
  moreHref: string;
  /** In-app href of the page's stored text, with the query's words marked. */
  storedHref: string;
}

/**
 * One search hit: title link to the crawled page, its URL and host, the fetch date, a snippet (none if the page
 * said nosnippet), and links to its stored text (unless it said noarchive) and its site.
 */
export function ResultItem({ result, moreHref, storedHref }: ResultItemProps) {
  const title = result.title.trim() === '' ? displayUrl(result.url) : result.title;
  return (
    <li className="result">
      <h2 className="result-title">
        <a href={result.url} rel="noopener noreferrer">
          {title}
        </a>
      </h2>
      <p className="result-meta">
        <span className="result-host">{result.host}</span>
        <span className="meta-sep" aria-hidden="true">
          ·
        </span>
        <span className="result-url">{displayUrl(result.url)}</span>
        <span className="meta-sep" aria-hidden="true">
          ·
        </span>
        <span>
          fetched <time dateTime={result.fetchedAt} title={formatDateTime(result.fetchedAt)}>{formatDate(result.fetchedAt)}</time>
        </span>
      </p>
      <ResultMarks result={result} />
      {result.snippet.length > 0 ? <Snippet pieces={result.snippet} /> : null}
      <p className="result-more">
        {result.stored ? (
          <>
            <Link href={storedHref}>
              Stored text<span className="visually-hidden"> of {title}</span>
            </Link>
            <span className="meta-sep" aria-hidden="true">
              ·
            </span>
          </>
        ) : null /* the page said noarchive: its site owner asked that no stored copy be shown */}
        <Link href={moreHref}>
          More from this site<span className="visually-hidden"> ({result.host})</span>
        </Link>
      </p>
    </li>
  );
}
