/**
 * Pages of results that one site cannot fill, as the large engines make them. Pure.
 *
 * The ranked results are dealt into pages of `pageSize`: each page takes, in rank order, the best
 * results not yet shown, at most SHOWN_PER_SITE of one site; a site's further results wait for later
 * pages (the app links to the site's own search, "More from this site"). When the waiting results are
 * all that is left (one site dominates the matches), a page is filled from them in rank order, so every
 * page but the last holds `pageSize` results. The order is a permutation of the ranking: no result is
 * dropped or shown twice, and the total stays what it was. When every match is on one site (a site:
 * search, or an index of one site), the order is the ranking itself.
 */

/** Results of one site on a page while other sites' results are left to fill it. */
export const SHOWN_PER_SITE = 2;

/** The display order of ranked results (indexes into `hosts`), dealt into pages of `pageSize` (see the file comment). */
export function spreadSites(hosts: readonly string[], pageSize: number): number[] {
  const size = Math.max(1, Math.trunc(pageSize));
  let pending = hosts.map((_, i) => i);
  const out: number[] = [];
  while (pending.length > 0) {
    const perSite = new Map<string, number>();
    const page: number[] = [];
    const rest: number[] = [];
    for (const i of pending) {
      const n = perSite.get(hosts[i]) ?? 0;
      if (page.length < size && n < SHOWN_PER_SITE) {
        page.push(i);
        perSite.set(hosts[i], n + 1);
      } else rest.push(i);
    }
    // Only held-back results are left to fill the page: take them in rank order.
    while (page.length < size && rest.length > 0) page.push(rest.shift() as number);
    page.sort((a, b) => a - b);
    out.push(...page);
    pending = rest;
  }
  return out;
}

/**
 * For each result of the page at `start` (of `size`) in `order` (spreadSites' display order over
 * `hosts`): true on a site's last result of the page when more of that site's results come on later
 * pages, where the app offers "More from this site" (its site: search). False for all when the
 * results span one site only.
 */
export function moreFromSite(
  hosts: readonly string[],
  order: readonly number[],
  start: number,
  size: number,
): boolean[] {
  const page = order.slice(start, start + size);
  if (new Set(hosts).size < 2) return page.map(() => false);
  const later = new Set(order.slice(start + size).map((i) => hosts[i]));
  return page.map((i, k) => later.has(hosts[i]) && !page.slice(k + 1).some((j) => hosts[j] === hosts[i]));
}
