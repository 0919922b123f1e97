/**
 * Which hosts share one politeness clock. Pure, shared by the scheduler and (later) the reports.
 *  - 'host': every origin (scheme + host + port) is its own group, the rule Lantern had first.
 *  - 'domain': every origin of one registrable domain shares one group, per the Public Suffix List with
 *    its private section (tldts): `docs.python.org` and `www.python.org` share `python.org`, while
 *    `alice.github.io` and `bob.github.io` stay apart. Scheme and port do not split a group (they are
 *    the same server). An IP address is a group of its own, whatever the port; so is a single-label
 *    name (`localhost`) and a public suffix used as a host name.
 */
import { registrableDomain } from '../common/url.ts';

/** How hosts are grouped for politeness: one clock per origin, or one per registrable domain. */
export type GroupMode = 'host' | 'domain';

/** Every grouping mode, for validating a setting. */
export const GROUP_MODES: readonly GroupMode[] = ['host', 'domain'];

/** The origin given to politenessGroup is not an absolute http(s) URL origin. */
export class PolitenessGroupError extends Error {
  override readonly name = 'PolitenessGroupError';
}

/**
 * The key of the politeness group of `origin` (`https://docs.python.org` → `python.org` in 'domain'
 * mode, itself in 'host' mode; `http://127.0.0.2:8080` → `127.0.0.2`; IPv6 without brackets).
 */
export function politenessGroup(origin: string, mode: GroupMode): string {
  if (mode === 'host') return origin;
  let hostname: string;
  try {
    hostname = new URL(origin).hostname;
  } catch {
    throw new PolitenessGroupError(
      `politeness-group: ${JSON.stringify(origin.slice(0, 80))} is not an origin (scheme://host[:port]); pass a normalized origin such as https://example.org`,
    );
  }
  if (hostname === '')
    throw new PolitenessGroupError(
      `politeness-group: ${JSON.stringify(origin.slice(0, 80))} has no host name; pass a normalized origin such as https://example.org`,
    );
  return registrableDomain(hostname);
}
