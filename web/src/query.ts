// Pure helpers for search queries as they appear in the URL.

/** Results per page. */
export const PAGE_SIZE = 10;

/** Reads the 1-based page number from `?page=`; anything invalid is page 1. */
export function parsePage(raw: string | null): number {
  if (raw === null || !/^\d{1,6}$/.test(raw)) return 1;
  return Math.max(1, Number(raw));
}

/** The query restricted to one site: existing `site:` operators are replaced by `site:HOST`. */
export function siteQuery(host: string, query: string): string {
  const rest = query
    .split(/\s+/)
    .filter((word) => word !== '' && !/^site:/i.test(word))
    .join(' ');
  return `site:${host} ${rest}`.trim();
}
