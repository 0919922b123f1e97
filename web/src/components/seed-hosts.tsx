import type { Seed } from '../api.ts';
import { formatCount, plural } from '../format.ts';

/**
 * A seed's hosts in its row of the Seeds table: how many its crawl is on and, once it reached the most
 * it may (CRAWL_MAX_HOSTS_PER_SEED) and left links to further hosts unfollowed, how many and an example,
 * so a person sees a site that invents host names without end (wildcard DNS) stopped, and why. The host
 * name comes from a crawled page: shown isolated (`<bdi>`), so its characters cannot reorder the sentence.
 */
export function SeedHosts({ seed }: { seed: Seed }) {
  if (seed.hostsRefused === 0) return <>{formatCount(seed.hosts)}</>;
  return (
    <>
      <span className="warn-text">{formatCount(seed.hosts)}</span>
      <span className="cell-note seed-host-limit" title={`CRAWL_MAX_HOSTS_PER_SEED is ${seed.maxHosts}`}>
        the limit: {plural(seed.hostsRefused, 'link')} to further hosts not followed
        {seed.lastRefusedHost !== null ? (
          <>
            , e.g. <bdi className="crawled-text">{seed.lastRefusedHost}</bdi>
          </>
        ) : null}
      </span>
    </>
  );
}
