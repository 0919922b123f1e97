import net from 'node:net';

/**
 * Whether a host name or address stays on this machine: `localhost` (and names under `.localhost`,
 * which RFC 6761 reserves for loopback), 127.0.0.0/8, `::1` and 127.x written as IPv4-mapped IPv6.
 * Lantern bound to such an address needs no secret; bound to anything else it does.
 */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) {
    if (h === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(h)) return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped !== null && mapped[1].startsWith('127.');
  }
  return false;
}

/** Whether `host` is an "every interface" address (0.0.0.0, ::): it names no host a browser could use. */
export function isWildcardAddress(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (net.isIPv4(h)) return h === '0.0.0.0';
  if (net.isIPv6(h)) return /^[0:]+$/.test(h);
  return false;
}
