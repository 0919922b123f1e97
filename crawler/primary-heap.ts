/**
 * The crawler primary's heap limit, as node options for its process. V8 lets a heap grow to a multiple
 * of its live data before it collects the old generation, and that multiple follows the heap's limit:
 * up to 4x under node's default limit on a 64-bit machine (2 GiB and more), between 1.3x and 2x under a
 * smaller one. The primary's live data follows its hosts, not its queued URLs (about 80 MiB at 10,000
 * hosts and 1,000,000 queued URLs, `npm run bench:frontier`), and its garbage follows its dispatch rate:
 * under node's default limit its heap reached 266 MiB before a collection (RSS 321 MiB) where 75 MiB
 * were live. CRAWL_PRIMARY_HEAP_MB (768 MiB by default: a factor of about 1.5) keeps the heap near its
 * live data, at the same CPU per job; a crawl of more hosts than it holds needs a larger setting.
 */

/** The node options to start the primary with: the parent's (`parentArgs`), its own heap limit replacing any given. */
export function primaryExecArgv(parentArgs: readonly string[], heapMb: number): string[] {
  return [...parentArgs.filter((arg) => !arg.startsWith('--max-old-space-size')), `--max-old-space-size=${heapMb}`];
}
