/**
 * Polling helper for tests: the one sanctioned way to wait for something to become true
 * (instead of sleeping for a guessed amount of time).
 */
import { inspect } from 'node:util';

/** Options of `waitFor`. */
export interface WaitForOptions {
  /** Give up after this long (default 20 000 ms). */
  timeoutMs?: number;
  /** Time between polls (default 25 ms). */
  intervalMs?: number;
  /** Describes the condition in the timeout error; a function is asked at the deadline (to report the state then). */
  message?: string | (() => string);
  /**
   * How far the awaited work has got (e.g. a crawl's counts by state), read after each poll. With it,
   * `timeoutMs` is a stall deadline: it runs from the last change of this reading, so a loaded machine that
   * is slow but moving never fails the wait, and work that stops moving fails it `timeoutMs` after it stopped.
   * `limitMs` (default 10 x timeoutMs) still bounds the whole wait.
   */
  progress?: () => string | Promise<string>;
  /** With `progress`: give up after this long in all, moving or not. */
  limitMs?: number;
}

/**
 * Calls `fn` until it returns (or resolves to) a value that is neither `undefined` nor `false`,
 * and resolves to that value. Polls immediately, then every `intervalMs`, and once more at the
 * deadline (with `progress`, the deadline moves with each change it reads; see WaitForOptions).
 * On timeout it rejects with an Error naming `message` and the last value seen.
 * An exception thrown by `fn` is not retried: it rejects the wait at once.
 */
export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  opts: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const intervalMs = opts.intervalMs ?? 25;
  const started = performance.now();
  const limit = started + (opts.progress ? (opts.limitMs ?? 10 * timeoutMs) : timeoutMs);
  let deadline = started + timeoutMs;
  let reading: string | undefined;
  let last: T | undefined | false;
  for (;;) {
    last = await fn();
    if (last !== undefined && last !== false) return last;
    if (opts.progress) {
      const now = await opts.progress();
      if (now !== reading) {
        reading = now;
        deadline = Math.min(limit, performance.now() + timeoutMs);
      }
    }
    const remaining = deadline - performance.now();
    if (remaining <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, remaining)));
  }
  const waited = Math.round(performance.now() - started);
  const within = opts.progress
    ? performance.now() >= limit
      ? `within ${waited} ms in all (limit ${Math.round(limit - started)} ms, still moving)`
      : `after ${timeoutMs} ms without progress (${waited} ms in all)`
    : `within ${timeoutMs} ms`;
  throw new Error(
    `waitFor: ${(typeof opts.message === 'function' ? opts.message() : opts.message) ?? 'condition'} not met ${within} (last value: ${inspect(last, { depth: 2 })})`,
  );
}
