import type { SearchResponse, Status } from '../api.ts';
import { plural } from '../format.ts';
import { Link } from './link.tsx';

/** Below this many indexed pages, a search that finds nothing may simply be missing the site: "add seeds" is offered. */
export const LITTLE_INDEXED = 100;

/** The in-app href of a search; `exact` asks for the words as typed, without a spelling correction. */
export type SearchHref = (q: string, options?: { exact?: boolean }) => string;

/**
 * A spelling correction in one line: "Showing results for X; search instead for Y" when the results are
 * the correction's, else "Did you mean X?" as one link.
 */
export function CorrectionNotice({ response, searchHref }: { response: SearchResponse; searchHref: SearchHref }) {
  const correction = response.correction;
  if (correction === null) return null;
  if (correction.applied) {
    return (
      <p className="notice info correction">
        Showing results for{' '}
        <Link href={searchHref(correction.query)}>
          <strong>{correction.query}</strong>
        </Link>
        ; search instead for <Link href={searchHref(response.query, { exact: true })}>{response.query}</Link>.
      </p>
    );
  }
  return (
    <p className="notice info correction">
      Did you mean{' '}
      <Link href={searchHref(correction.query)}>
        <strong>{correction.query}</strong>
      </Link>
      ?
    </p>
  );
}

/** The query's words and operators, as typed, split on spaces. */
function parts(query: string): string[] {
  return query.split(/\s+/).filter((w) => w !== '');
}

/**
 * What a search that found nothing says: what was searched, and what to try — fewer words, a site:
 * (or all sites, when it had one), the spelling — and "add seeds" only while little is indexed.
 */
export function NoResults({
  query,
  status,
  searchHref,
}: {
  query: string;
  status: Status | null;
  searchHref: SearchHref;
}) {
  const words = parts(query);
  const plain = words.filter((w) => !/^-?site:/i.test(w));
  const sited = plain.length !== words.length;
  const fewer =
    plain.length > 1 ? [...words.filter((w) => /^-?site:/i.test(w)), ...plain.slice(0, -1)].join(' ') : null;
  const little = status !== null && status.indexed < LITTLE_INDEXED;
  return (
    <div className="empty no-results">
      <p>
        No pages match <strong>{query}</strong>
        {status !== null ? <> among the {plural(status.indexed, 'page')} indexed</> : null}.
      </p>
      <p className="muted">Try:</p>
      <ul className="tips">
        {fewer !== null ? (
          <li>
            fewer words: <Link href={searchHref(fewer)}>{fewer}</Link>
          </li>
        ) : (
          <li>other or fewer words</li>
        )}
        {sited ? (
          <li>
            every site: <Link href={searchHref(plain.join(' '))}>{plain.join(' ')}</Link>
          </li>
        ) : (
          <li>
            one site with <code>site:</code> and its host name before the words
          </li>
        )}
        <li>checking the spelling</li>
        {little ? (
          <li>
            <Link href="/seeds">adding seeds</Link>: only {plural(status.indexed, 'page')}{' '}
            {status.indexed === 1 ? 'is' : 'are'} indexed so far
          </li>
        ) : null}
      </ul>
    </div>
  );
}
