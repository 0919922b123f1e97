/**
 * Names the crawler resolves itself, before DNS (CRAWL_RESOLVE, as curl's --resolve): a name in the map
 * answers its one address, any other name goes to the system resolver. The private-address check of
 * fetcher.ts guardedLookup still judges the answer, so a mapped loopback address needs CRAWL_ALLOW_PRIVATE
 * like any other. It is how the tests give the loopback test web named hosts (several names on one
 * address) without touching the machine's resolver files.
 */
import { lookup as dnsLookup } from 'node:dns';
import net from 'node:net';
import type { Resolver } from './fetcher.ts';

const systemResolver: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** A resolver answering the names of `map` (lower-case name → IP address) itself, others through `fallback`. */
export function staticResolver(map: Readonly<Record<string, string>>, fallback: Resolver = systemResolver): Resolver {
  const names = new Map(Object.entries(map).map(([name, address]) => [name.toLowerCase(), address]));
  if (names.size === 0) return fallback;
  return (hostname, options, callback) => {
    const address = names.get(hostname.toLowerCase().replace(/\.$/, ''));
    if (address === undefined) return fallback(hostname, options, callback);
    const family = net.isIP(address);
    if (options.family !== undefined && options.family !== 0 && options.family !== family) return callback(null, []);
    queueMicrotask(() => callback(null, [{ address, family }]));
  };
}
