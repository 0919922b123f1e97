/**
 * Work that a start can leave for later: each item is compiled the first time it is needed, or
 * earlier, one at a time, when the process has nothing else to do (the caller decides when: see
 * strict-input.ts). Either way it is compiled once. Pure: no timers here.
 */

/** Something compiled at most once: `get()` compiles it if nobody has yet. */
export interface Deferred<T> {
  get(): T;
}

/** The items not compiled yet, in the order they were added. */
export class DeferredCompiles {
  readonly #waiting = new Set<() => void>();

  /** Defers `compile`: it runs at the first `get()` or `compileNext()`, whichever comes first. */
  add<T>(compile: () => T): Deferred<T> {
    let done: { value: T } | undefined;
    const run = () => {
      this.#waiting.delete(run);
      done ??= { value: compile() };
      return done.value;
    };
    this.#waiting.add(run);
    return { get: () => (done === undefined ? run() : done.value) };
  }

  /** How many items have not been compiled yet. */
  get pending(): number {
    return this.#waiting.size;
  }

  /** Compiles the oldest waiting item; false when none was left. Its error, if any, is thrown. */
  compileNext(): boolean {
    const next = this.#waiting.values().next();
    if (next.done) return false;
    next.value();
    return true;
  }
}
