/**
 * Which discovered URLs the crawler takes on: links of a fetched page (depth, scope, trap rules, the
 * per-page and per-host limits of CRAWL_LIMITS) and redirect targets (policy, hop limit, scope, loops).
 * The crawler primary's Coordinator asks; this module only judges. Pure: no I/O, no clock.
 */
import type { Scope } from '../../shared/enumerations.ts';
import { checkUrl, inScope, type UrlPolicy } from '../common/url.ts';
import { CRAWL_LIMITS, trapReason, type CrawlLimits } from '../common/url-traps.ts';

/** Redirect hops followed from one URL before giving up. */
export const MAX_REDIRECTS = CRAWL_LIMITS.maxRedirects;

/** What admission needs to know of the seed a URL was found from. */
export interface SeedScope {
  url: string;
  depth: number;
  scope: Scope;
}

/** The links of one page worth queueing, and what was left out and why. */
export interface LinkAdmission {
  /** In scope, within depth and the per-page cap, and no trap: to be queued if their host has room. */
  follow: string[];
  /** Links past CRAWL_LIMITS.maxLinksPerPage, dropped unread. */
  overPageCap: number;
  /** Links refused by a trap rule (see url-traps.ts), and the first of them with its reason. */
  trapped: number;
  trapExample: { url: string; reason: string } | null;
}

/**
 * Chooses the links of a page at `depth` (found from `seed`) to follow: none when the page said
 * nofollow, the seed is unknown, or the seed's depth (at most CRAWL_LIMITS.maxDepth) is reached;
 * else the first maxLinksPerPage links that stay in the seed's scope and are no trap. `links` are
 * already normalized and judged by crawler/common/url.ts in the worker.
 */
export function admitLinks(
  links: readonly string[],
  from: { depth: number; nofollow: boolean; seed: SeedScope | undefined },
  limits: CrawlLimits = CRAWL_LIMITS,
): LinkAdmission {
  const out: LinkAdmission = { follow: [], overPageCap: 0, trapped: 0, trapExample: null };
  const seed = from.seed;
  if (from.nofollow || !seed || from.depth >= Math.min(seed.depth, limits.maxDepth)) return out;
  const considered = links.length > limits.maxLinksPerPage ? links.slice(0, limits.maxLinksPerPage) : links;
  out.overPageCap = links.length - considered.length;
  for (const url of considered) {
    if (!inScope(seed.url, url, seed.scope)) continue;
    const trap = trapReason(url, limits);
    if (trap) {
      out.trapped++;
      out.trapExample ??= { url, reason: trap };
      continue;
    }
    out.follow.push(url);
  }
  return out;
}

/** The host row's words when the per-host URL budget stops link following. */
export function budgetMessage(limit: number): string {
  return `stopped following links: ${limit.toLocaleString('en-US')} URLs already found on this host (the limit per host, CRAWL_MAX_URLS_PER_HOST)`;
}

/** The host row's words when trap rules refused links of a page. */
export function trapMessage(trapped: number, example: { url: string; reason: string }): string {
  const what = trapped === 1 ? 'a link that looks' : `${trapped} links that look`;
  return `stopped following ${what} like an endless URL space, e.g. ${example.url} (${example.reason.replace(/^url-traps: /, '')})`;
}

/**
 * Counts each host's URLs against the per-host budget (CRAWL_LIMITS.maxUrlsPerHost or the configured
 * one). URLs added during one database transaction stay provisional until `commit()`; `rollback()`
 * forgets them when the transaction fails, so the counts always match what is stored.
 */
export class UrlBudget {
  private readonly counts = new Map<string, number>();
  private pending = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** Sets the stored counts (at start, from the frontier). */
  load(counts: Iterable<{ origin: string; n: number }>): void {
    for (const { origin, n } of counts) this.counts.set(origin, n);
  }

  /** URLs of `origin` known, committed or provisional. */
  count(origin: string): number {
    return (this.counts.get(origin) ?? 0) + (this.pending.get(origin) ?? 0);
  }

  /** Whether `origin` may take one more URL. */
  hasRoom(origin: string): boolean {
    return this.count(origin) < this.limit;
  }

  /** Counts one new URL of `origin` stored outside a flush (a seed). */
  record(origin: string): void {
    this.counts.set(origin, (this.counts.get(origin) ?? 0) + 1);
  }

  /** Counts one new URL of `origin` (provisionally, until commit). */
  add(origin: string): void {
    this.pending.set(origin, (this.pending.get(origin) ?? 0) + 1);
  }

  /** URLs deleted (a removed seed's), per host: they no longer count. */
  forget(counts: Iterable<{ origin: string; n: number }>): void {
    for (const { origin, n } of counts) this.counts.set(origin, Math.max(0, (this.counts.get(origin) ?? 0) - n));
  }

  /** The transaction that added the provisional URLs committed. */
  commit(): void {
    for (const [origin, n] of this.pending) this.counts.set(origin, (this.counts.get(origin) ?? 0) + n);
    this.pending = new Map();
  }

  /** The transaction failed: its URLs were not stored. */
  rollback(): void {
    this.pending = new Map();
  }
}

/** A redirect to follow (its normalized target) or a refusal that becomes the URL's last_error. */
export type RedirectDecision = { ok: true; url: string; origin: string } | { ok: false; error: string };

/**
 * Judges the redirect a URL answered with. `location` is the target the worker already normalized
 * (null when it found none usable; `refusal` then says why). The target is checked again here against
 * the crawler's policy (a private address with CRAWL_ALLOW_PRIVATE=0, a non-http(s) scheme), so the
 * decision does not rest on the worker alone. Refused: more than MAX_REDIRECTS hops, out of the seed's
 * scope (except for the seed URL itself, which may move anywhere), or a trap-like target.
 */
export function judgeRedirect(r: {
  location: string | null;
  refusal: string | null;
  redirects: number;
  depth: number;
  seed: SeedScope | undefined;
  policy: UrlPolicy;
  limits?: CrawlLimits;
}): RedirectDecision {
  const limits = r.limits ?? CRAWL_LIMITS;
  if (!r.location)
    return { ok: false, error: r.refusal ? `redirect refused: ${r.refusal}` : 'redirect without a usable Location' };
  if (r.redirects + 1 > limits.maxRedirects)
    return { ok: false, error: `too many redirects (more than ${limits.maxRedirects})` };
  const checked = checkUrl(r.location, r.policy);
  if (!checked.ok) return { ok: false, error: `redirect refused: ${checked.message}` };
  if (r.seed && r.depth > 0 && !inScope(r.seed.url, checked.url, r.seed.scope)) {
    return { ok: false, error: `redirects out of scope to ${checked.url}` };
  }
  const trap = trapReason(checked.url, limits);
  if (trap) return { ok: false, error: `redirect refused: ${checked.url}: ${trap}` };
  return { ok: true, url: checked.url, origin: checked.origin };
}

/**
 * Whether `source` redirecting to `target` closes a loop: follows the redirects already recorded
 * (`redirectOf`), starting at `target`, for at most `maxSteps` hops. Returns the loop as a list of
 * URLs from `source` back to `source` (`[source, target, ..., source]`), or null when the walk ends
 * at a URL that did not redirect, wanders off into another loop, or runs out of steps.
 */
export async function findRedirectLoop(
  source: string,
  target: string,
  redirectOf: (url: string) => Promise<string | undefined> | string | undefined,
  maxSteps = MAX_REDIRECTS + 1,
): Promise<string[] | null> {
  const chain = [source, target];
  let current = target;
  for (let step = 0; step <= maxSteps; step++) {
    if (current === source) return chain;
    const next = await redirectOf(current);
    if (next === undefined) return null;
    chain.push(next);
    current = next;
  }
  return null;
}

/** The last_error of every URL of a redirect loop. */
export function loopMessage(loop: readonly string[]): string {
  return `redirect loop: ${loop.join(' → ')}`;
}
