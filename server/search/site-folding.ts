/**
 * Which results of a page fold under their site's best ones. Pure.
 *
 * When the matches span several sites, a site's third and later results on one page are marked
 * folded: the app shows them under that site's first two, behind "more from this site", so one
 * site cannot fill the page while its best results keep their places. When every match is on one
 * site (a site: search, or an index of one site), nothing folds: the page stays a plain list.
 */

/** Results of one site shown on a page before the rest of that site's fold. */
export const SHOWN_PER_SITE = 2;

/** For each result of the page (in order), whether it folds; `sites` is how many sites the matches span. */
export function foldFlags(hosts: readonly string[], sites: number): boolean[] {
  if (sites < 2) return hosts.map(() => false);
  const seen = new Map<string, number>();
  return hosts.map((host) => {
    const n = (seen.get(host) ?? 0) + 1;
    seen.set(host, n);
    return n > SHOWN_PER_SITE;
  });
}
