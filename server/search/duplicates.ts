/**
 * One result per content: the same page is often reachable at several addresses (`/` and
 * `/index.html`, http and https, a tracking parameter the URL rules do not know), and a person wants
 * it once. Pages whose stored title and text are identical (the crawler's content hash) are folded
 * into the best-ranked of them. Pure: no I/O.
 */

/**
 * Keeps, in order, the first result of each content hash; results without a hash are always kept.
 * Because it keeps first occurrences, the folded list's first n entries depend only on the ranked
 * list's prefix up to them, so pagination stays consistent.
 */
export function firstPerContent<T extends { id: number }>(
  ranked: readonly T[],
  hashOf: (id: number) => string | null,
): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const r of ranked) {
    const hash = hashOf(r.id);
    if (hash !== null) {
      if (seen.has(hash)) continue;
      seen.add(hash);
    }
    out.push(r);
  }
  return out;
}
