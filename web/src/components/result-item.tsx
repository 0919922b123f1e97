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

/** The fold a result heads: its site's further results on the page, shown or hidden by its button. */
export interface ResultFold {
  count: number;
  open: boolean;
  /** Ids of the folded results (aria-controls). */
  controls: string;
  onToggle: () => void;
}

/** Props of one search result. */
export interface ResultItemProps {
  result: SearchResult;
  /** In-app href that searches this result's site for the same query. */
  moreHref: string;
  /** In-app href of the page's stored text, with the query's words marked. */
  storedHref: string;
  /** Folded away under its site's shown results (until that fold is opened). */
  hidden?: boolean;
  className?: string;
  id?: string;
  /** Set on a site's last shown result when more of the site's results on the page fold under it. */
  fold?: ResultFold;
}

/**
 * One search hit: title link to the crawled page, its site once with the path, the fetch date, a
 * snippet (none if the page said nosnippet), links to its stored text (unless it said noarchive) and
 * its site, and the button of its site's folded results, if any.
 */
export function ResultItem({ result, moreHref, storedHref, hidden = false, className, id, fold }: ResultItemProps) {
  const { site, path } = urlParts(result.url);
  const title = result.title.trim() === '' ? `${site}${path === '' ? '' : ` › ${path}`}` : result.title;
  return (
    <li className={className ?? 'result'} hidden={hidden} id={id}>
      <h2 className="result-title">
        <a href={result.url} rel="noopener noreferrer">
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
        <Link href={moreHref}>
          More from this site<span className="visually-hidden"> ({result.host})</span>
        </Link>
      </p>
      {fold !== undefined ? (
        <button
          type="button"
          className="fold-button"
          aria-expanded={fold.open}
          aria-controls={fold.controls}
          onClick={fold.onToggle}
        >
          {fold.open ? 'Fewer' : `${fold.count} more`} from {result.host}
        </button>
      ) : null}
    </li>
  );
}
