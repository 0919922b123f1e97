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
}

/**
 * Calls `fn` until it returns (or resolves to) a value that is neither `undefined` nor `false`,
 * and resolves to that value. Polls immediately, then every `intervalMs`, and once more at the
 * deadline. On timeout it rejects with an Error naming `message` and the last value seen.
 * An exception thrown by `fn` is not retried: it rejects the wait at once.
 */
export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  opts: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const intervalMs = opts.intervalMs ?? 25;
  const deadline = performance.now() + timeoutMs;
  let last: T | undefined | false;
  for (;;) {
    last = await fn();
    if (last !== undefined && last !== false) return last;
    const remaining = deadline - performance.now();
    if (remaining <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, remaining)));
  }
  throw new Error(
    `waitFor: ${(typeof opts.message === 'function' ? opts.message() : opts.message) ?? 'condition'} not met within ${timeoutMs} ms (last value: ${inspect(last, { depth: 2 })})`,
  );
}
