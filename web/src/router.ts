// A tiny client-side router on the History API: the URL is the single source of truth for the current
// view and its parameters; `navigate` pushes (or replaces) an entry and notifies subscribers, and the
// browser's back/forward buttons arrive as `popstate`.
import { useMemo, useSyncExternalStore } from 'react';

const NAVIGATE_EVENT = 'lantern:navigate';

/** The part of the current location the app routes on. */
export interface Location {
  path: string;
  params: URLSearchParams;
  /** How the location was reached: `push`/`replace` by the app, `pop` by back/forward, `load` at start. */
  cause: NavigationCause;
}

/** Why the location last changed. */
export type NavigationCause = 'load' | 'push' | 'replace' | 'pop';

let lastCause: NavigationCause = 'load';

function subscribe(onChange: () => void): () => void {
  const onPop = (): void => {
    lastCause = 'pop';
    onChange();
  };
  window.addEventListener('popstate', onPop);
  window.addEventListener(NAVIGATE_EVENT, onChange);
  return () => {
    window.removeEventListener('popstate', onPop);
    window.removeEventListener(NAVIGATE_EVENT, onChange);
  };
}

function snapshot(): string {
  return window.location.pathname + window.location.search;
}

/** Goes to an in-app URL (path plus optional query) without reloading, adding a history entry unless `replace`. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) {
    if (!options.replace) window.scrollTo(0, 0);
    return;
  }
  lastCause = options.replace ? 'replace' : 'push';
  if (options.replace) window.history.replaceState(null, '', to);
  else {
    window.history.pushState(null, '', to);
    window.scrollTo(0, 0);
  }
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

/** Subscribes a component to the current location; re-renders when it changes. */
export function useLocation(): Location {
  const current = useSyncExternalStore(subscribe, snapshot, snapshot);
  return useMemo(() => {
    const url = new URL(current, 'http://lantern.invalid');
    return { path: url.pathname, params: url.searchParams, cause: lastCause };
  }, [current]);
}

/** Builds an in-app href from a path and query parameters, dropping empty values. */
export function href(path: string, params: Record<string, string | number | null | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined || value === '') continue;
    query.set(key, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}
