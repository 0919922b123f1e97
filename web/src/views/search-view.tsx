import { useEffect, useRef, useState } from 'react';
import { getStatus, isAbort, search } from '../api.ts';
import type { SearchResponse, Status } from '../api.ts';
import { Link } from '../components/link.tsx';
import { ResultList } from '../components/result-list.tsx';
import { SearchBox } from '../components/search-box.tsx';
import { CorrectionNotice, NoResults } from '../components/search-notices.tsx';
import { formatCount, formatTook, plural } from '../format.ts';
import { PAGE_SIZE, parsePage, siteQuery } from '../query.ts';
import { href, navigate, useLocation } from '../router.ts';
import { useTitle } from '../use-title.ts';
import { recallData, rememberData, useScrollMemory } from '../view-memory.ts';

type ResultState =
  | { kind: 'idle' }
  | { kind: 'loading'; previous: SearchResponse | null }
  | { kind: 'done'; response: SearchResponse; key: string }
  | { kind: 'error'; message: string };

/** What a history entry of this view remembers (view-memory.ts). */
interface Remembered {
  key: string;
  response: SearchResponse;
}

/** Builds the in-app href of a search for `q` at 1-based `page`; `exact` searches the words as typed (no correction). */
function searchHref(q: string, page = 1, exact = false): string {
  return href('/', { q, page: page > 1 ? page : null, correct: exact ? 0 : null });
}

/**
 * The Search view (`/?q=...&page=N[&correct=0]`): the URL holds the query and page, so back/forward and
 * shared links restore both the box and the results. Coming back to an entry (Back, Forward, or Back
 * from a result's page) shows the results it showed, from memory, at the scroll position it had.
 */
export function SearchView() {
  const location = useLocation();
  const q = location.params.get('q') ?? '';
  const page = parsePage(location.params.get('page'));
  const exact = location.params.get('correct') === '0';
  const key = `${q}\u0000${page}\u0000${exact ? 1 : 0}`;
  const [text, setText] = useState(q);
  const [shownQ, setShownQ] = useState(q);
  const [state, setState] = useState<ResultState>(() => recalled(key, location.cause) ?? { kind: 'idle' });
  const [handled, setHandled] = useState(key);
  const [status, setStatus] = useState<Status | null>(null);
  const summaryRef = useRef<HTMLParagraphElement>(null);
  const pageChanged = useRef(false);

  if (shownQ !== q) {
    // The URL changed (a search, back/forward, a "more from this site" link): the box follows it.
    setShownQ(q);
    setText(q);
  }
  if (handled !== key) {
    // Back or Forward to an entry: its results as they were, in this very render (no empty list first).
    setHandled(key);
    const back = recalled(key, location.cause);
    if (back !== undefined) setState(back);
  }

  useTitle(q.trim() === '' ? 'Search' : q);

  const fromMemory = state.kind === 'done' && state.key === key;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs for a new query only; a list restored from memory (Back) is not fetched again
  useEffect(() => {
    if (q.trim() === '') {
      setState({ kind: 'idle' });
      return;
    }
    if (fromMemory) return;
    const controller = new AbortController();
    setState((old) => ({
      kind: 'loading',
      previous: old.kind === 'done' ? old.response : old.kind === 'loading' ? old.previous : null,
    }));
    search(q, (page - 1) * PAGE_SIZE, PAGE_SIZE, controller.signal, !exact)
      .then((response) => {
        setState({ kind: 'done', response, key });
        rememberData('search', { key, response } satisfies Remembered);
        if (pageChanged.current) {
          pageChanged.current = false;
          summaryRef.current?.focus({ preventScroll: true });
        }
      })
      .catch((error: unknown) => {
        if (isAbort(error)) return;
        setState({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
      });
    return () => controller.abort();
    // fromMemory is read when the query changes, not followed: a remembered answer is not fetched again.
  }, [q, page, exact]);

  useScrollMemory(state.kind === 'done' || state.kind === 'idle' || state.kind === 'error', location.cause, key);

  const needStatus = state.kind === 'idle' || (state.kind === 'done' && state.response.total === 0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the page count is asked again for each new query
  useEffect(() => {
    if (!needStatus) return;
    const controller = new AbortController();
    getStatus(controller.signal)
      .then(setStatus)
      .catch(() => undefined); // the count is a hint; the empty state still reads well without it
    return () => controller.abort();
  }, [needStatus, q]);

  const submit = (query: string): void => {
    const trimmed = query.trim();
    if (trimmed === '') {
      navigate('/');
      return;
    }
    navigate(searchHref(trimmed));
  };

  const goToPage = (target: number): void => {
    pageChanged.current = true;
    navigate(searchHref(q, target, exact));
  };

  const response = state.kind === 'done' ? state.response : state.kind === 'loading' ? state.previous : null;
  const busy = state.kind === 'loading';
  const linkTo = (query: string, options: { exact?: boolean } = {}) => searchHref(query, 1, options.exact === true);

  return (
    <section className="view search-view" aria-labelledby="search-heading">
      <h1 id="search-heading" className="visually-hidden" tabIndex={-1}>
        Search
      </h1>
      <SearchBox value={text} onChange={setText} onSubmit={submit} autoFocus />

      {state.kind === 'idle' ? <Landing status={status} /> : null}

      {state.kind === 'error' ? (
        <div role="alert" className="notice error">
          <strong>Search failed.</strong> {state.message}
        </div>
      ) : null}

      {response !== null && state.kind !== 'error' ? (
        <div className={busy ? 'results-block busy' : 'results-block'} aria-busy={busy}>
          <p className="results-summary" role="status" ref={summaryRef} tabIndex={-1}>
            {plural(response.total, 'result')} in {formatTook(response.tookMs)}
            {response.total > PAGE_SIZE ? (
              <span className="page-of">
                {' '}
                · page {formatCount(page)} of {formatCount(Math.ceil(response.total / PAGE_SIZE))}
              </span>
            ) : null}
          </p>
          {response.indexing ? (
            <p className="notice info">The index is still building, so some pages may be missing from these results.</p>
          ) : null}
          <CorrectionNotice response={response} searchHref={linkTo} />
          {response.correction?.applied !== true && (response.mode === 'or' || response.notice !== null) ? (
            <p className="notice info">
              {response.notice ?? 'No page contains every word, so these results contain some of them.'}
            </p>
          ) : null}
          {response.total === 0 ? (
            <NoResults query={response.query} status={status} searchHref={linkTo} />
          ) : (
            <ResultList
              results={response.results}
              start={(page - 1) * PAGE_SIZE + 1}
              moreHref={(result) => searchHref(siteQuery(result.host, q))}
              storedHref={(result) => href('/stored', { url: result.url, q, page: page > 1 ? page : null })}
            />
          )}
          {response.total > PAGE_SIZE || page > 1 ? (
            <nav className="pagination" aria-label="Result pages">
              <button type="button" className="button" disabled={page <= 1} onClick={() => goToPage(page - 1)}>
                Previous
              </button>
              <button
                type="button"
                className="button"
                disabled={(page - 1) * PAGE_SIZE + response.results.length >= response.total}
                onClick={() => goToPage(page + 1)}
              >
                Next
              </button>
            </nav>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

/** The state an entry reached by Back/Forward starts in: the results it showed, if they are remembered. */
function recalled(key: string, cause: Parameters<typeof recallData>[1]): ResultState | undefined {
  const memory = recallData<Remembered>('search', cause);
  return memory !== undefined && memory.key === key ? { kind: 'done', response: memory.response, key } : undefined;
}

function Landing({ status }: { status: Status | null }) {
  if (status === null) return <p className="landing">Search the pages Lantern has crawled for you.</p>;
  if (status.indexed === 0) {
    return (
      <p className="landing">
        Nothing is indexed yet. <Link href="/seeds">Add seeds</Link> and Lantern will crawl them politely.
      </p>
    );
  }
  if (!status.searchReady) {
    return <p className="landing">The search index is still building; results may be incomplete for a moment.</p>;
  }
  return (
    <p className="landing">
      Search {plural(status.indexed, 'page')} crawled for you
      {status.queued > 0 ? <> ({formatCount(status.queued)} more queued)</> : null}.
    </p>
  );
}
