// What each history entry showed, so that Back (and Forward) brings it back as it was: the view's
// data from memory rather than a refetch that redraws from empty, and the scroll position once that
// data is on screen. Every entry gets a key in history.state; data lives in memory while the app is
// loaded and in sessionStorage when the document is left (a search result opened in the same tab,
// then Back), so it survives a new document for the same entry.
import { useEffect, useLayoutEffect, useRef } from 'react';
import type { NavigationCause } from './router.ts';

const STORE_PREFIX = 'lantern:view:';
/** Entries whose data is kept in sessionStorage (the newest). */
const MAX_STORED = 30;

const memory = new Map<string, { data: Record<string, unknown>; scrollY: number }>();
let counter = 0;

/** The key of the current history entry (given one, keeping its state, if it has none). */
export function entryKey(): string {
  const state = window.history.state as { lanternKey?: unknown } | null;
  if (state !== null && typeof state === 'object' && typeof state.lanternKey === 'string') return state.lanternKey;
  const key = `${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  window.history.replaceState({ ...(state ?? {}), lanternKey: key }, '');
  return key;
}

function entry(key: string): { data: Record<string, unknown>; scrollY: number } {
  let e = memory.get(key);
  if (e === undefined) {
    e = { data: {}, scrollY: 0 };
    try {
      const raw = window.sessionStorage.getItem(STORE_PREFIX + key);
      if (raw !== null) e = JSON.parse(raw) as { data: Record<string, unknown>; scrollY: number };
    } catch {
      // unreadable or refused storage: this entry starts empty (Back then fetches as on a first visit)
    }
    memory.set(key, e);
  }
  return e;
}

/** Keeps `data` as what the current entry shows under `name`. */
export function rememberData(name: string, data: unknown): void {
  entry(entryKey()).data[name] = data;
}

/** What the current entry showed under `name`, if it was reached again by Back/Forward (or restored); else undefined. */
export function recallData<T>(name: string, cause: NavigationCause): T | undefined {
  if (!cameBack(cause)) return undefined;
  return entry(entryKey()).data[name] as T | undefined;
}

/** Whether the current entry is one the person returns to (Back/Forward), not a new one or a reload. */
export function cameBack(cause: NavigationCause): boolean {
  if (cause === 'pop') return true;
  if (cause !== 'load') return false;
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  return nav?.type === 'back_forward';
}

/** Writes the entries in memory to sessionStorage (the newest MAX_STORED), as the document is left. */
function persist(): void {
  try {
    const keys = [...memory.keys()].slice(-MAX_STORED);
    for (const key of keys) window.sessionStorage.setItem(STORE_PREFIX + key, JSON.stringify(memory.get(key)));
  } catch {
    // storage full or refused: Back to this document will fetch again, as without it
  }
}

let installed = false;

/** Tracks the scroll position of every entry and saves all entries when the document is left (once per app). */
function install(): void {
  if (installed) return;
  installed = true;
  window.history.scrollRestoration = 'manual';
  let frame = 0;
  window.addEventListener(
    'scroll',
    () => {
      if (frame !== 0) return;
      frame = window.requestAnimationFrame(() => {
        frame = 0;
        entry(entryKey()).scrollY = window.scrollY;
      });
    },
    { passive: true },
  );
  window.addEventListener('pagehide', () => {
    entry(entryKey()).scrollY = window.scrollY;
    persist();
  });
}

/**
 * Restores the entry's scroll position once the view says its content is shown (`ready`), when the
 * entry was reached by Back/Forward; a new entry starts at the top (router.ts scrolls it there).
 */
export function useScrollMemory(ready: boolean, cause: NavigationCause, location: string): void {
  const restored = useRef<string | null>(null);
  useEffect(() => install(), []);
  useLayoutEffect(() => {
    if (!ready || restored.current === location) return;
    restored.current = location;
    if (!cameBack(cause)) return;
    const y = entry(entryKey()).scrollY;
    if (y > 0) window.scrollTo(0, y);
  }, [ready, cause, location]);
}
