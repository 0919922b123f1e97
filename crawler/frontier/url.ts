// URL normalization and policy: the one place that decides whether a seed, a link or a redirect
// target is a URL Lantern may crawl, and what its canonical form is. Pure: no I/O, no DNS.
//
// Normal form (built on WHATWG URL, which already lower-cases scheme and host, drops default ports,
// resolves dot segments, punycodes IDN hosts and turns odd IPv4 literals such as 2130706433 into
// dotted quads): surrounding whitespace trimmed, fragment dropped, an empty query (`?` with nothing
// after it) dropped, a trailing dot on the host name dropped, percent-escape hex upper-cased,
// session IDs (`PHPSESSID=…`, `;jsessionid=…`, `sid=<token>`) dropped (see url-traps.ts). The rest of
// the query is kept byte for byte, in the order given (never sorted).
import { getDomain } from 'tldts';
import type { Scope } from '../../shared/enumerations.ts';
import { stripSessionIds } from './url-traps.ts';

/** Longest URL (in characters, before or after normalizing) that Lantern accepts. */
export const MAX_URL_LENGTH = 2048;

/** What a caller allows beyond the public web; `allowPrivate` mirrors CRAWL_ALLOW_PRIVATE. */
export interface UrlPolicy { allowPrivate: boolean }

/** Why a URL was refused; stable strings, sent to API clients as `error`. */
export type UrlRefusalCode = 'missing' | 'malformed' | 'unsupported-scheme' | 'too-long' | 'credentials' | 'private-address';

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
  return refuse('too-long', `the URL is ${length} characters long (after normalizing); Lantern accepts URLs of at most ${MAX_URL_LENGTH} characters`);
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
    return refuse('too-long', `the URL is ${text.length} characters long; Lantern accepts URLs of at most ${MAX_URL_LENGTH} characters`);
  }

  if (base !== undefined && parse(base) === null) {
    return refuse('malformed', `the base URL ${show(base)} is not a valid absolute URL, so ${show(text)} cannot be resolved against it`);
  }
  const url = parse(text, base);
  // "example.org:8080/x" or "localhost:3000" parse as a URL whose scheme is the host name.
  const hostWithPort = base === undefined && /^(?:localhost|[^/:?#\s]*\.[^/:?#\s]*):\d+(?:[/?#]|$)/i.test(text);
  if (url === null || (hostWithPort && !SCHEMES.has(url.protocol))) {
    const hint = base === undefined && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)
      ? `; it lacks a scheme, try ${show(`https://${text}`)}`
      : '; write a full address such as https://example.org/';
    return refuse('malformed', `${show(text)} is not a valid URL${hint}`);
  }
  if (!SCHEMES.has(url.protocol)) {
    return refuse('unsupported-scheme', `${show(text)} uses the ${url.protocol} scheme; Lantern crawls only http and https URLs`);
  }
  if (url.username !== '' || url.password !== '') {
    url.username = '';
    url.password = '';
    url.hash = '';
    return refuse('credentials', `${show(url.href)} was given with a user name or password in it; remove the "user:password@" part, Lantern never sends credentials to sites`);
  }

  let name = url.hostname;
  while (name.endsWith('.')) name = name.slice(0, -1);
  if (name === '') return refuse('malformed', `${show(text)} has no host name; write a full address such as https://example.org/`);
  if (name !== url.hostname) url.hostname = name;
  if (url.port === '0') return refuse('malformed', `${show(text)} names port 0, which no server listens on`);

  url.hash = '';
  stripSessionIds(url);
  if (url.search === '') url.search = ''; // drops a bare trailing "?"
  const normalized = url.href.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
  if (normalized.length > MAX_URL_LENGTH) return tooLong(normalized.length);

  if (!policy.allowPrivate) {
    const kind = isIpLiteral(name) ? addressKind(name) : localNameKind(name);
    if (kind !== null) {
      const written = hostOf(text);
      const given = written === null || written === url.hostname ? url.hostname : `${url.hostname} (written ${show(written)})`;
      return refuse('private-address', `${given} is ${kind}; ${PRIVATE_HINT}`);
    }
  }
  return { ok: true, url: normalized, origin: url.origin, host: url.host, hostname: url.hostname };
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

function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || parseIPv4(host) !== null;
}

/**
 * True for any address (IPv4, IPv6, IPv4-mapped/compatible/NAT64/6to4) a crawler must not reach by
 * default: loopback, private, link-local, unique-local, unspecified, CGNAT, multicast, broadcast,
 * "this network" and reserved ranges. Input: an IP literal as from a DNS lookup or a URL host, with
 * or without [ ]; IPv4 may be written in any form WHATWG accepts (`127.1`, `0x7f.1`, `2130706433`).
 * Strings that are not IP literals return false: host names are judged by checkUrl.
 */
export function isPrivateAddress(ip: string): boolean {
  return addressKind(ip) !== null;
}

/** Describes why an IP literal is not public (e.g. "a loopback address"), or null when it is public or not an IP. */
function addressKind(ip: string): string | null {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.includes(':')) {
    const zone = text.indexOf('%');
    const groups = parseIPv6(zone === -1 ? text : text.slice(0, zone));
    return groups === null ? null : ipv6Kind(groups);
  }
  const v4 = parseIPv4(text);
  return v4 === null ? null : ipv4Kind(v4);
}

/** Parses IPv4 the way WHATWG URL does (1–4 parts, decimal, 0x hex or 0-prefixed octal); a 32-bit number or null. */
function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(part)) n = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) n = parseInt(part.slice(1), 8);
    else if (/^(?:0|[1-9][0-9]*)$/.test(part)) n = Number(part);
    else return null;
    numbers.push(n);
  }
  const last = numbers.pop() as number;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  return numbers.reduce((sum, n, i) => sum + n * 256 ** (3 - i), 0) + last;
}

/** Parses an IPv6 address (with `::` and an optional dotted-IPv4 tail) into 8 groups, or null. */
function parseIPv6(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const toGroups = (half: string, isTail: boolean): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const pieces = half.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      if (isTail && i === pieces.length - 1 && piece.includes('.')) {
        if (!/^\d{1,3}(?:\.\d{1,3}){3}$/.test(piece)) return null;
        const bytes = piece.split('.').map(Number);
        if (bytes.some((b) => b > 255)) return null;
        out.push(bytes[0] * 256 + bytes[1], bytes[2] * 256 + bytes[3]);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        out.push(parseInt(piece, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  if (halves.length === 1) {
    const all = toGroups(halves[0], true);
    return all !== null && all.length === 8 ? all : null;
  }
  const head = toGroups(halves[0], false);
  const tail = toGroups(halves[1], true);
  if (head === null || tail === null || head.length + tail.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** Whether the 32-bit address `n` lies in `base`/`bits`. */
function inV4(n: number, base: string, bits: number): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(n / size) === Math.floor((parseIPv4(base) as number) / size);
}

function ipv4Kind(n: number): string | null {
  if (n === 0) return 'the unspecified address';
  if (inV4(n, '0.0.0.0', 8)) return 'a "this network" address';
  if (inV4(n, '127.0.0.0', 8)) return 'a loopback address';
  if (inV4(n, '10.0.0.0', 8) || inV4(n, '172.16.0.0', 12) || inV4(n, '192.168.0.0', 16)) return 'a private-network address';
  if (n === parseIPv4('169.254.169.254')) return 'the cloud metadata address (link-local)';
  if (inV4(n, '169.254.0.0', 16)) return 'a link-local address';
  if (inV4(n, '100.64.0.0', 10)) return 'a carrier-grade NAT (shared) address';
  if (inV4(n, '192.0.0.0', 24) || inV4(n, '198.18.0.0', 15)) return 'a reserved special-purpose address';
  if (inV4(n, '224.0.0.0', 4)) return 'a multicast address';
  if (n === 0xffffffff) return 'the broadcast address';
  if (inV4(n, '240.0.0.0', 4)) return 'a reserved address';
  return null;
}

function ipv6Kind(g: number[]): string | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const v4 = (hi: number, lo: number) => hi * 65536 + lo;
  const embedded = (n: number, how: string) => {
    const kind = ipv4Kind(n);
    return kind === null ? null : `${kind} (${how})`;
  };
  if (zero(0, 8)) return 'the unspecified address';
  if (zero(0, 7) && g[7] === 1) return 'a loopback address';
  if (zero(0, 5) && g[5] === 0xffff) return embedded(v4(g[6], g[7]), 'IPv4-mapped');
  if (zero(0, 6)) return embedded(v4(g[6], g[7]), 'IPv4-compatible');
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return embedded(v4(g[6], g[7]), 'IPv4-translated');
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return embedded(v4(g[6], g[7]), 'NAT64');
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'a local-use NAT64 address';
  if (g[0] === 0x2002) return embedded(v4(g[1], g[2]), '6to4');
  if (g[0] === 0x100 && zero(1, 4)) return 'a discard-only address';
  if ((g[0] & 0xfe00) === 0xfc00) return 'a unique-local address';
  if ((g[0] & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((g[0] & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((g[0] & 0xff00) === 0xff00) return 'a multicast address';
  return null;
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
  if (host.includes(':') || parseIPv4(host) !== null) return host;
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
