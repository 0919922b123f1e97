// Polling and clock hooks shared by the live views.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { isAbort } from './api.ts';

/** What a polled resource looks like to a view: the last good data survives failures. */
export interface Polled<T> {
  data: T | null;
  error: Error | null;
  /** True while the latest attempt failed (the data shown is stale). */
  failing: boolean;
  /** Fetches again right away (e.g. after the user changed something). */
  refresh: () => void;
}

/**
 * Fetches `load` now and then every `intervalMs` after the previous attempt settles (never overlapping),
 * keeps the last good data across errors, and keeps retrying so it recovers when the server is back.
 * Polling pauses while the page is hidden. `load` may change identity freely; the latest one is used.
 * `initial`: data to show until the first answer (what the view showed when the person left it).
 */
export function usePoll<T>(
  load: (signal: AbortSignal) => Promise<T>,
  intervalMs: number,
  initial: T | null = null,
): Polled<T> {
  const [data, setData] = useState<T | null>(initial);
  const [error, setError] = useState<Error | null>(null);
  const loadRef = useRef(load);
  useLayoutEffect(() => {
    loadRef.current = load;
  });
  const kick = useRef<() => void>(() => undefined);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let controller: AbortController | null = null;

    const run = async (): Promise<void> => {
      clearTimeout(timer);
      controller?.abort();
      const mine = new AbortController();
      controller = mine;
      try {
        const value = await loadRef.current(mine.signal);
        if (stopped || mine.signal.aborted) return;
        setData(value);
        setError(null);
      } catch (caught) {
        if (stopped || isAbort(caught) || mine.signal.aborted) return;
        setError(caught instanceof Error ? caught : new Error(String(caught)));
      }
      if (!stopped && controller === mine) schedule();
    };
    const schedule = (): void => {
      clearTimeout(timer);
      if (document.visibilityState === 'hidden') return;
      timer = setTimeout(() => void run(), intervalMs);
    };
    const onVisibility = (): void => {
      if (document.visibilityState === 'visible') void run();
      else clearTimeout(timer);
    };

    kick.current = () => void run();
    document.addEventListener('visibilitychange', onVisibility);
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [intervalMs]);

  const refresh = useCallback(() => kick.current(), []);
  return { data, error, failing: error !== null, refresh };
}

/** The current time in ms, re-rendering every `intervalMs` (aligned to the wall-clock second). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout>;
    const tick = (): void => {
      const current = Date.now();
      setNow(current);
      timer = setTimeout(tick, intervalMs - (current % intervalMs) + 5);
    };
    timer = setTimeout(tick, intervalMs - (Date.now() % intervalMs) + 5);
    return () => clearTimeout(timer);
  }, [intervalMs]);
  return now;
}
