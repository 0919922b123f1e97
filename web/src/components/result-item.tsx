import type { SearchResult, SnippetPiece } from '../api.ts';
import { formatDate, formatDateTime, urlParts } from '../format.ts';
import { Link } from './link.tsx';
import { ResultMarks } from './result-marks.tsx';

/**
 * Text pieces as React text: matched words in `<mark>`, everything else plain; a word that matched as
 * a synonym says which typed word it stands for ("modify, for change"). Crawled text is never markup.
 */
export function MarkedText({ pieces }: { pieces: readonly SnippetPiece[] }) {
  return (
    <>
      {pieces.map((piece, index) =>
        !piece.match ? (
          piece.text
        ) : piece.for === undefined ? (
          <mark key={index}>{piece.text}</mark>
        ) : (
          <mark key={index} className="synonym" title={`for “${piece.for}”`}>
            {piece.text}
          </mark>
        ),
      )}
    </>
  );
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

/** Where a result's title leads: the page, or for a PDF whose snippet is from page N, that page (`#page=N`). */
export function resultHref(result: SearchResult): string {
  if (result.fileType !== 'pdf' || result.page === null) return result.url;
  return `${result.url.replace(/#.*$/, '')}#page=${result.page}`;
}

/**
 * One search hit: title link to the crawled page (a PDF at the page its snippet is from), its site once
 * with the path, the fetch date, a snippet (none if the page said nosnippet), the words it lacks when
 * the search ran in OR mode, and links to its stored text (unless it said noarchive) and its site (said
 * in full, "More from docs.python.org", where more of that site's results were left for later pages).
 */
export function ResultItem({ result, moreHref, storedHref }: ResultItemProps) {
  const { site, path } = urlParts(result.url);
  const title = result.title.trim() === '' ? `${site}${path === '' ? '' : ` › ${path}`}` : result.title;
  return (
    <li className="result">
      <h2 className="result-title">
        <a href={resultHref(result)} rel="noopener noreferrer">
          {title}
        </a>
      </h2>
      <p className="result-meta">
        <span className="result-url">
          <span className="result-host">{result.host}</span>
          {path !== '' ? <span className="result-path"> › {path}</span> : null}
        </span>
        <span className="meta-sep" aria-hidden="true">
          ·
        </span>
        <span className="result-date">
          <time dateTime={result.fetchedAt} title={`fetched ${formatDateTime(result.fetchedAt)}`}>
            {formatDate(result.fetchedAt)}
          </time>
        </span>
      </p>
      <ResultMarks result={result} />
      {result.snippet.length > 0 ? <Snippet pieces={result.snippet} /> : null}
      {result.missing.length > 0 ? (
        <p className="result-missing">
          Missing:{' '}
          {result.missing.map((word, i) => (
            <span key={word}>
              {i > 0 ? ', ' : null}
              <s>{word}</s>
            </span>
          ))}
        </p>
      ) : null}
      <p className="result-more">
        {
          result.stored ? (
            <>
              <Link href={storedHref}>
                Stored text<span className="visually-hidden"> of {title}</span>
              </Link>
              <span className="meta-sep" aria-hidden="true">
                ·
              </span>
            </>
          ) : null /* the page said noarchive: its site owner asked that no stored copy be shown */
        }
        {result.moreFromSite ? (
          <Link href={moreHref} className="site-more">
            More from {result.host}
          </Link>
        ) : (
          <Link href={moreHref}>
            More from this site<span className="visually-hidden"> ({result.host})</span>
          </Link>
        )}
      </p>
    </li>
  );
}
