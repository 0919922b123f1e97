import { useEffect, useMemo, useState } from 'react';
import { storedPage } from '../api.ts';
import type { StoredPage } from '../api.ts';
import { Link } from '../components/link.tsx';
import { MarkedText } from '../components/result-item.tsx';
import { displayUrl, formatDateTime } from '../format.ts';
import { highlightPieces, queryWords } from '../highlight.ts';
import { href, useLocation } from '../router.ts';
import { useTitle } from '../use-title.ts';
import { recallData, rememberData, useScrollMemory } from '../view-memory.ts';

type State = { kind: 'loading' } | { kind: 'ready'; page: StoredPage } | { kind: 'error'; message: string };

/** One paragraph of stored text, the query's words in `<mark>`: crawled text is only ever text. */
function Paragraph({ text, words }: { text: string; words: string[] }) {
  return (
    <p>
      <MarkedText pieces={highlightPieces(text, words)} />
    </p>
  );
}

/**
 * The Stored text view (`/stored?url=…&q=…&page=N`): the text Lantern indexed for one page, as it was when
 * fetched, with the search's words marked, so a person can read what matched even when the live page
 * changed or is gone. Reached from a search result.
 */
export function StoredView({
  url,
  query,
  page,
}: {
  url: string;
  query: string /** The results page it was opened from. */;
  page: number;
}) {
  const { cause } = useLocation();
  const [state, setState] = useState<State>(() => {
    const back = recallData<StoredPage>('stored', cause);
    return back !== undefined && back.url === url ? { kind: 'ready', page: back } : { kind: 'loading' };
  });
  const words = useMemo(() => queryWords(query), [query]);
  useScrollMemory(state.kind !== 'loading', cause, url);
  useTitle(state.kind === 'ready' ? `Stored text: ${state.page.title || displayUrl(state.page.url)}` : 'Stored text');

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs for a new URL only; the page restored from memory (Back) is not fetched again
  useEffect(() => {
    if (state.kind === 'ready' && state.page.url === url) return; // remembered (Back): not fetched again
    const controller = new AbortController();
    setState({ kind: 'loading' });
    storedPage(url, controller.signal).then(
      (page) => {
        setState({ kind: 'ready', page });
        rememberData('stored', page);
      },
      (error: unknown) => {
        if (!controller.signal.aborted)
          setState({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => controller.abort();
    // The state is read when the url changes, not followed.
  }, [url]);

  const back = href('/', { q: query.trim() === '' ? null : query, page: page > 1 ? page : null });
  return (
    <section className="view stored-view" aria-labelledby="stored-heading">
      <p className="back-link">
        <Link href={back}>{query.trim() === '' ? 'Search' : `Back to results for “${query}”`}</Link>
      </p>
      {state.kind === 'ready' ? (
        <>
          <h1 id="stored-heading" tabIndex={-1}>
            {state.page.title.trim() === '' ? displayUrl(state.page.url) : state.page.title}
          </h1>
          <p className="result-meta">
            <a href={state.page.url} rel="noopener noreferrer">
              {displayUrl(state.page.url)}
            </a>
            <span className="meta-sep" aria-hidden="true">
              ·
            </span>
            <span>
              stored text as fetched <time dateTime={state.page.fetchedAt}>{formatDateTime(state.page.fetchedAt)}</time>
            </span>
          </p>
          <p className="notice info">
            This is the text Lantern indexed for this page, without its layout, links or images. The live page may have
            changed since.
          </p>
          <div className="stored-text" lang={state.page.lang ?? undefined}>
            {state.page.text
              .split('\n')
              .filter((line) => line.trim() !== '')
              .map((line, i) => (
                <Paragraph key={i} text={line} words={words} />
              ))}
          </div>
          {state.page.truncated ? <p className="notice info">The text goes on; this shows its first part.</p> : null}
        </>
      ) : (
        <>
          <h1 id="stored-heading" tabIndex={-1}>
            Stored text
          </h1>
          {state.kind === 'loading' ? (
            <p className="muted">Loading…</p>
          ) : (
            <p role="alert" className="notice error">
              The stored text of {url} could not be shown: {state.message}
            </p>
          )}
        </>
      )}
    </section>
  );
}
