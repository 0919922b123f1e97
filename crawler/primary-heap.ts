/**
 * The crawler primary's heap, as node options for its process. V8 lets a heap grow to a multiple of its
 * live data before it collects the old generation, and that multiple follows the heap's limit: up to 4x
 * under node's default limit on a 64-bit machine (2 GiB and more), between 1.3x and 2x under a smaller
 * one. The primary's live data follows its hosts, not its queued URLs (about 70 MiB at 10,000 hosts and
 * 1,000,000 queued URLs, `npm run bench:frontier`), and its garbage follows its dispatch rate: under node's
 * default limit its heap reached 266 MiB before a collection (RSS 321 MiB) where 75 MiB were live.
 * CRAWL_PRIMARY_HEAP_MB (768 MiB by default) bounds the heap; PRIMARY_HEAP_GROWING_PERCENT keeps it near
 * its live data whatever the bound, at the same CPU per job.
 */

/**
 * How far the old generation may grow past its live data before the next full collection, in percent
 * (V8's `--heap-growing-percent`; its own choice, 0, let it reach about 1.7x under a limit of 768 MiB).
 * Measured with `npm run bench:frontier`'s crawl part (10,000 hosts, 1,000,000 queued URLs, 2026-12-04,
 * one run each on the same loaded machine): heap max 122 MiB and RSS max 234 MiB with V8's choice; 108 and
 * 224 with 30 (and 20); CPU per job 0.15-0.19 ms in all of them.
 */
export const PRIMARY_HEAP_GROWING_PERCENT = 30;

/** The node options only the primary gets (its workers leave them out: their garbage dies young). */
export const PRIMARY_ONLY_OPTIONS = ['--max-old-space-size', '--heap-growing-percent'] as const;

/** Whether a node option is one of PRIMARY_ONLY_OPTIONS. */
export function isPrimaryOnlyOption(arg: string): boolean {
  return PRIMARY_ONLY_OPTIONS.some((name) => arg.startsWith(name));
}

/** The node options to start the primary with: the parent's (`parentArgs`), its own heap options replacing any given. */
export function primaryExecArgv(parentArgs: readonly string[], heapMb: number): string[] {
  return [
    ...parentArgs.filter((arg) => !isPrimaryOnlyOption(arg)),
    `--max-old-space-size=${heapMb}`,
    `--heap-growing-percent=${PRIMARY_HEAP_GROWING_PERCENT}`,
  ];
}
