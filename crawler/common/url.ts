// URL normalization and policy: the one place that decides whether a seed, a link or a redirect
// target is a URL Lantern may crawl, and what its canonical form is. Pure: no I/O, no DNS.
//
// Normal form (built on WHATWG URL, which already lower-cases scheme and host, drops default ports,
// resolves dot segments, punycodes IDN hosts and turns odd IPv4 literals such as 2130706433 into
// dotted quads): surrounding whitespace trimmed, fragment dropped, an empty query (`?` with nothing
// after it) dropped, a trailing dot on the host name dropped, percent-escape hex upper-cased,
// session IDs (`PHPSESSID=…`, `;jsessionid=…`, `sid=<token>`) dropped (see url-traps.ts). The rest of
// the query is kept byte for byte, in the order given (never sorted).
//
// Private addresses: the ranges are data (IPV4_RANGES, IPV6_RANGES, EMBEDDINGS) checked with Node's
// net.BlockList; an IPv4 literal in an odd spelling is read by WHATWG URL itself, as in a link.
// Kept by hand, and why: the normal form above, because it is Lantern's dedupe key and a policy
// (normalize-url, by default, sorts the query and drops `www.`, merging pages a server tells apart),
// with WHATWG URL already doing all the parsing; the local host names (LOCAL_NAMES, LOCAL_SUFFIXES),
// because they are policy, not an address range a library knows.
import { BlockList, isIPv4, isIPv6, SocketAddress } from 'node:net';
import { getDomain } from 'tldts';
import type { Scope } from '../../shared/enumerations.ts';
import { stripSessionIds } from './url-traps.ts';

/** Longest URL (in characters, before or after normalizing) that Lantern accepts. */
export const MAX_URL_LENGTH = 2048;

/** What a caller allows beyond the public web; `allowPrivate` mirrors CRAWL_ALLOW_PRIVATE. */
export interface UrlPolicy {
  allowPrivate: boolean;
}

/** Why a URL was refused; stable strings, sent to API clients as `error`. */
export type UrlRefusalCode =
  | 'missing'
  | 'malformed'
  | 'unsupported-scheme'
  | 'too-long'
  | 'credentials'
  | 'private-address';

/** Result of checkUrl: the normalized URL and its keys, or a refusal code with a message for people. */
export type UrlCheck =
  | {
      ok: true;
      /** The normalized absolute URL. */
      url: string;
      /** scheme://host[:port], normalized; the per-host key of the scheduler. */
      origin: string;
      /** Host name plus `:port` when the port is not the default, e.g. `127.0.0.2:8080` or `example.org`. */
      host: string;
      /** Host name without port, as WHATWG URL gives it (IPv6 in brackets, e.g. `[2001:db8::1]`). */
      hostname: string;
    }
  | { ok: false; code: UrlRefusalCode; message: string };

const SCHEMES = new Set(['http:', 'https:']);
/** Exact host names that only make sense inside a machine or a cloud network. */
const LOCAL_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'instance-data']);
/** Suffixes reserved for (or conventionally used by) local networks. */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa', 'lan'];
const PRIVATE_HINT = 'Lantern does not crawl local or private networks unless CRAWL_ALLOW_PRIVATE=1 is set';

/** Shows user input inside a message: quoted, escaped, and cut short so a huge input stays readable. */
function show(text: string): string {
  const cut = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  return JSON.stringify(cut);
}

function refuse(code: UrlRefusalCode, message: string): UrlCheck {
  return { ok: false, code, message: `url: ${message}` };
}

function tooLong(length: number): UrlCheck {
  return refuse(
    'too-long',
    `the URL is ${length} characters long (after normalizing); Lantern accepts URLs of at most ${MAX_URL_LENGTH} characters`,
  );
}

/** Parses `text` (against `base` when given); null when WHATWG URL cannot. */
function parse(text: string, base?: string): URL | null {
  try {
    return base === undefined ? new URL(text) : new URL(text, base);
  } catch {
    return null;
  }
}

/**
 * Normalizes and judges a URL typed by a person or found in a page. `base` (a page URL or the URL
 * that answered with a redirect) resolves relative input such as `../a` or `//host/x`.
 * Never throws; a refusal carries a code for programs and a message (starting `url: `) for people.
 */
export function checkUrl(input: unknown, policy: UrlPolicy, base?: string): UrlCheck {
  if (typeof input !== 'string') {
    const what = input === null ? 'null' : typeof input;
    return refuse('missing', `expected a URL string but got ${what}; send a full address such as https://example.org/`);
  }
  const text = input.trim();
  if (text === '') return refuse('missing', 'no URL given; send a full address such as https://example.org/');
  if (text.length > MAX_URL_LENGTH) {
    return refuse(
      'too-long',
      `the URL is ${text.length} characters long; Lantern accepts URLs of at most ${MAX_URL_LENGTH} characters`,
    );
  }

  if (base !== undefined && parse(base) === null) {
    return refuse(
      'malformed',
      `the base URL ${show(base)} is not a valid absolute URL, so ${show(text)} cannot be resolved against it`,
    );
  }
  const url = parse(text, base);
  // "example.org:8080/x" or "localhost:3000" parse as a URL whose scheme is the host name.
  const hostWithPort = base === undefined && looksLikeHostWithPort(text);
  if (url === null || (hostWithPort && !SCHEMES.has(url.protocol))) {
    const hint =
      base === undefined && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)
        ? `; it lacks a scheme, try ${show(`https://${text}`)}`
        : '; write a full address such as https://example.org/';
    return refuse('malformed', `${show(text)} is not a valid URL${hint}`);
  }
  if (!SCHEMES.has(url.protocol)) {
    return refuse(
      'unsupported-scheme',
      `${show(text)} uses the ${url.protocol} scheme; Lantern crawls only http and https URLs`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    url.username = '';
    url.password = '';
    url.hash = '';
    return refuse(
      'credentials',
      `${show(url.href)} was given with a user name or password in it; remove the "user:password@" part, Lantern never sends credentials to sites`,
    );
  }

  let name = url.hostname;
  while (name.endsWith('.')) name = name.slice(0, -1);
  if (name === '')
    return refuse('malformed', `${show(text)} has no host name; write a full address such as https://example.org/`);
  if (name !== url.hostname) url.hostname = name;
  if (url.port === '0') return refuse('malformed', `${show(text)} names port 0, which no server listens on`);

  url.hash = '';
  stripSessionIds(url);
  if (url.search === '') url.search = ''; // drops a bare trailing "?"
  const normalized = url.href.replace(/%[0-9a-f]{2}/gi, (hex) => hex.toUpperCase());
  if (normalized.length > MAX_URL_LENGTH) return tooLong(normalized.length);

  if (!policy.allowPrivate) {
    const kind = addressKind(url.hostname) ?? localNameKind(name);
    if (kind !== null) {
      const written = hostOf(text);
      const given =
        written === null || written === url.hostname ? url.hostname : `${url.hostname} (written ${show(written)})`;
      return refuse('private-address', `${given} is ${kind}; ${PRIVATE_HINT}`);
    }
  }
  return { ok: true, url: normalized, origin: url.origin, host: url.host, hostname: url.hostname };
}

/** Characters that end a host name as written: `/ : ? #` and whitespace. */
const HOST_END = /[/:?#\s]/;

/**
 * Whether `text` starts like `example.org:8080` or `localhost:3000` followed by the end or `/ ? #`: a
 * host with a port and no scheme. One scan (the regex it replaces, `[^/:?#\s]*\.[^/:?#\s]*:`,
 * tried every dot of a long dotted name against the rest of it: quadratic in the dots).
 */
export function looksLikeHostWithPort(text: string): boolean {
  const colon = text.search(HOST_END);
  if (colon === -1 || text[colon] !== ':') return false;
  const host = text.slice(0, colon);
  if (host.toLowerCase() !== 'localhost' && !host.includes('.')) return false;
  let i = colon + 1;
  while (i < text.length && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
  return i > colon + 1 && (i === text.length || '/?#'.includes(text[i]));
}

/** The host part of an absolute URL as written (before WHATWG's rewriting), for messages. */
function hostOf(text: string): string | null {
  const match = /^[a-z][a-z0-9+.-]*:\/*(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(text);
  return match ? match[1].toLowerCase() : null;
}

/** Describes a host name that names a local machine or network, or null for an ordinary name. */
function localNameKind(name: string): string | null {
  if (LOCAL_NAMES.has(name)) return name === 'localhost' ? 'a loopback host name' : 'a cloud metadata host name';
  const suffix = LOCAL_SUFFIXES.find((s) => name.endsWith(`.${s}`));
  return suffix === undefined ? null : `a host name under .${suffix}, which is reserved for local networks`;
}

/** IPv4 ranges a crawler must not reach by default; the first that holds an address names it (so /32s come first). */
const IPV4_RANGES: ReadonlyArray<readonly [kind: string, cidrs: readonly string[]]> = [
  ['the unspecified address', ['0.0.0.0/32']],
  ['a "this network" address', ['0.0.0.0/8']],
  ['a loopback address', ['127.0.0.0/8']],
  ['a private-network address', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
  ['the cloud metadata address (link-local)', ['169.254.169.254/32']],
  ['a link-local address', ['169.254.0.0/16']],
  ['a carrier-grade NAT (shared) address', ['100.64.0.0/10']],
  ['a reserved special-purpose address', ['192.0.0.0/24', '198.18.0.0/15']],
  ['a documentation address', ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24']],
  ['a multicast address', ['224.0.0.0/4']],
  ['the broadcast address', ['255.255.255.255/32']],
  ['a reserved address', ['240.0.0.0/4']],
];

/** IPv6 ranges a crawler must not reach by default (those that carry an IPv4 address are in EMBEDDINGS). */
const IPV6_RANGES: ReadonlyArray<readonly [kind: string, cidrs: readonly string[]]> = [
  ['the unspecified address', ['::/128']],
  ['a loopback address', ['::1/128']],
  ['a local-use NAT64 address', ['64:ff9b:1::/48']],
  ['a discard-only address', ['100::/64']],
  ['a documentation address', ['2001:db8::/32', '3fff::/20']],
  ['a unique-local address', ['fc00::/7']],
  ['a link-local address', ['fe80::/10']],
  ['a site-local address', ['fec0::/10']],
  ['a multicast address', ['ff00::/8']],
];

/**
 * IPv6 ranges that carry an IPv4 address, judged by that address: what each is called, and the IPv6
 * subnet holding an IPv4 subnet (the IPv4 address in the last 32 bits or, for 6to4, in the 32 after 2002::/16).
 */
const EMBEDDINGS: ReadonlyArray<readonly [how: string, embed: (v4: string, bits: number) => string]> = [
  ['IPv4-mapped', (v4, bits) => `::ffff:${v4}/${96 + bits}`],
  ['IPv4-compatible', (v4, bits) => `::${v4}/${96 + bits}`],
  ['IPv4-translated', (v4, bits) => `::ffff:0:${v4}/${96 + bits}`],
  ['NAT64', (v4, bits) => `64:ff9b::${v4}/${96 + bits}`],
  [
    '6to4',
    (v4, bits) => {
      const [a, b, c, d] = v4.split('.').map(Number);
      return `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::/${16 + bits}`;
    },
  ],
];

/** Ranges as BlockLists: `any` holds them all (one check for a public address), `kinds` one per kind, in order. */
interface Classifier {
  any: BlockList;
  kinds: ReadonlyArray<readonly [kind: string, list: BlockList]>;
}

function classifier(
  family: 'ipv4' | 'ipv6',
  ranges: ReadonlyArray<readonly [kind: string, cidrs: readonly string[]]>,
): Classifier {
  const any = new BlockList();
  const kinds = ranges.map(([kind, cidrs]) => {
    const list = new BlockList();
    for (const cidr of cidrs) {
      const [base, bits] = cidr.split('/');
      list.addSubnet(base, Number(bits), family);
      any.addSubnet(base, Number(bits), family);
    }
    return [kind, list] as const;
  });
  return { any, kinds };
}

const V4 = classifier('ipv4', IPV4_RANGES);
const V6 = classifier('ipv6', [
  ...IPV6_RANGES,
  ...EMBEDDINGS.flatMap(([how, embed]) =>
    IPV4_RANGES.map(
      ([kind, cidrs]) =>
        [`${kind} (${how})`, cidrs.map((cidr) => embed(cidr.split('/')[0], Number(cidr.split('/')[1])))] as const,
    ),
  ),
]);

/**
 * True for any address (IPv4, IPv6, IPv4-mapped/compatible/NAT64/6to4) a crawler must not reach by
 * default: loopback, private, link-local, unique-local, unspecified, CGNAT, multicast, broadcast,
 * documentation, "this network" and reserved ranges. Input: an IP literal as from a DNS lookup or a
 * URL host, with or without [ ]; IPv4 may be written in any form WHATWG accepts (`127.1`, `0x7f.1`,
 * `2130706433`). Strings that are not IP literals return false: host names are judged by checkUrl.
 */
export function isPrivateAddress(ip: string): boolean {
  return addressKind(ip) !== null;
}

/** Describes why an IP literal is not public (e.g. "a loopback address"), or null when it is public or not an IP. */
function addressKind(ip: string): string | null {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%'); // fe80::1%eth0: the zone names an interface, it is not part of the address
  if (zone !== -1 && text.includes(':')) text = text.slice(0, zone);
  const v6 = isIPv6(text);
  const canonical = v6 ? text : canonicalIPv4(text);
  if (canonical === null) return null;
  const { any, kinds } = v6 ? V6 : V4;
  const address = new SocketAddress({ address: canonical, family: v6 ? 'ipv6' : 'ipv4' }); // parsed once for every check
  if (!any.check(address)) return null;
  return kinds.find(([, list]) => list.check(address))?.[0] ?? null;
}

/** An IPv4 literal in any form WHATWG URL accepts (`127.1`, `0x7f.1`, `017700000001`) as a dotted quad; else null. */
function canonicalIPv4(text: string): string | null {
  if (isIPv4(text)) return text;
  if (!/^[0-9a-fx.]+$/i.test(text)) return null; // only digits, hex and dots can spell one (and nothing else reaches the URL parser)
  const host = parse(`http://${text}/`)?.hostname;
  return host !== undefined && isIPv4(host) ? host : null;
}

/** Lower-cased host name without brackets and trailing dots, for comparisons. */
function bareHost(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  while (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

/**
 * The registrable domain of a host (`www.example.co.uk` → `example.co.uk`, per the Public Suffix
 * List including its private section, so `a.github.io` and `b.github.io` differ), or the host itself
 * for IP addresses, single-label names and public suffixes.
 */
export function registrableDomain(hostname: string): string {
  const host = bareHost(hostname);
  if (host.includes(':') || canonicalIPv4(host) !== null) return host;
  return getDomain(host, { allowPrivateDomains: true, extractHostname: false }) ?? host;
}

/**
 * The folder a 'path' scope keeps to: the seed URL's path up to its last "/" (`/docs/` for
 * `/docs/` and for `/docs/intro.html`; `/` for a site's root).
 */
export function scopeFolder(pathname: string): string {
  return pathname.slice(0, pathname.lastIndexOf('/') + 1) || '/';
}

/**
 * Whether `url` stays inside the scope of `seedUrl`: 'path' = as 'host', and under the seed's folder
 * (see scopeFolder); 'host' = same host name and same port, where each scheme's default port counts
 * as "no port" (so an http→https upgrade of a host stays in scope); 'domain' = same registrable domain
 * (same address for IP hosts; any port); 'any' = every http(s) URL. False when either URL cannot be
 * parsed or is not http(s).
 */
export function inScope(seedUrl: string, url: string, scope: Scope): boolean {
  const seed = parse(seedUrl.trim());
  const link = parse(url.trim());
  if (seed === null || link === null || !SCHEMES.has(seed.protocol) || !SCHEMES.has(link.protocol)) return false;
  if (scope === 'any') return true;
  if (scope === 'domain') return registrableDomain(seed.hostname) === registrableDomain(link.hostname);
  const sameHost = bareHost(seed.hostname) === bareHost(link.hostname) && seed.port === link.port;
  return scope === 'host' ? sameHost : sameHost && link.pathname.startsWith(scopeFolder(seed.pathname));
}
