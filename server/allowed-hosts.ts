import type { Config } from '../shared/config.ts';
import { isWildcardAddress } from '../shared/host-names.ts';

/** A host as a `Host` header or an origin names it: lower-case name (IPv6 in brackets) and port, null when left out. */
export interface HostName {
  name: string;
  port: number | null;
}

/** Ports a browser leaves out of `Host` and `Origin` (http's and https's): a name without a port means one of them. */
const DEFAULT_PORTS: ReadonlySet<number> = new Set([80, 443]);

/** The loopback names Lantern always answers to, on the port it listens on. */
export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** Reads `name`, `name:port`, `[v6]` or `[v6]:port` (a Host header's value, or a PUBLIC_HOSTS entry); null if it is none of them. */
export function parseHostName(value: string): HostName | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]/\s@]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (m === null) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { name: m[1], port };
}

/**
 * The host names Lantern answers to, and the origins whose pages may change it. Anything else is
 * another site's name: a page whose name was re-pointed at this machine (DNS rebinding) gets nothing.
 *
 * How an entry matches a `Host` (or an origin's host):
 * - an entry with a port (every loopback name and HOST, on PORT; `name:port` in PUBLIC_HOSTS) matches that
 *   name with that port, and the name without a port when its port is 80 or 443 (what a browser sends then);
 * - an entry without a port (`name` in PUBLIC_HOSTS) matches the name without a port (what a reverse proxy
 *   forwards: `Host: lantern.example.com`) and the name on the port Lantern listens on (a LAN name used directly).
 */
export class AllowedHosts {
  private readonly exact = new Set<string>();
  private readonly bare = new Set<string>();

  constructor(entries: readonly HostName[], listenPort: number) {
    for (const e of entries) {
      if (e.port === null) {
        this.bare.add(e.name);
        this.exact.add(`${e.name}:${listenPort}`);
      } else {
        this.exact.add(`${e.name}:${e.port}`);
        if (DEFAULT_PORTS.has(e.port)) this.bare.add(e.name);
      }
    }
  }

  /** The names of a configuration: loopback and HOST (unless a wildcard) on PORT, and PUBLIC_HOSTS. */
  static fromConfig(config: Pick<Config, 'host' | 'port' | 'publicHosts'>): AllowedHosts {
    const entries: HostName[] = LOOPBACK_NAMES.map((name) => ({ name, port: config.port }));
    if (!isWildcardAddress(config.host)) {
      const host = config.host.toLowerCase();
      entries.push({ name: host.includes(':') && !host.startsWith('[') ? `[${host}]` : host, port: config.port });
    }
    for (const entry of config.publicHosts) {
      const parsed = parseHostName(entry);
      if (parsed !== null) entries.push(parsed); // loadConfig checked every entry
    }
    return new AllowedHosts(entries, config.port);
  }

  /** Whether a request's `Host` header names Lantern. */
  allowsHost(value: string | undefined): boolean {
    const host = value === undefined ? null : parseHostName(value);
    return host !== null && this.matches(host);
  }

  /** Whether a page of `origin` (an `Origin` header's value) is one of Lantern's own; `null` and other schemes are not. */
  allowsOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin === 'null') return false;
    return this.matches({ name: url.hostname.toLowerCase(), port: url.port === '' ? null : Number(url.port) });
  }

  private matches(host: HostName): boolean {
    return host.port === null ? this.bare.has(host.name) : this.exact.has(`${host.name}:${host.port}`);
  }
}
