/**
 * The test web: many loopback HTTP "sites" at once, each on its own 127.x address with an
 * ephemeral port, serving pages described in code and logging every request with precise
 * timestamps, so crawler tests can check what was fetched, how, and how politely.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export { politenessReport } from './politeness.ts';
export type { PolitenessReport, PolitenessViolation } from './politeness.ts';
export { generateSite, generatedDepth, generatedPath, uniqueToken, FANOUT } from './generate.ts';
export type { GenerateSiteOptions } from './generate.ts';
export { waitFor } from './wait-for.ts';
export type { WaitForOptions } from './wait-for.ts';

/** One response a site gives for a path. */
export interface PageSpec {
  /** Response body (default ''). Not sent for HEAD. */
  body?: string | Buffer;
  /** Status code (default 200). */
  status?: number;
  /** Extra headers; content-type defaults to 'text/html; charset=utf-8' (text/plain for robots.txt). */
  headers?: Record<string, string>;
  /** Artificial time before the headers are sent (also before `handler` is called). */
  delayMs?: number;
  /** Full control of the response (hostile cases); body/status/headers are then ignored. */
  handler?: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

/** What one site serves. */
export interface SiteSpec {
  /** robots.txt: a string is a 200 text/plain body; a PageSpec gives any status or delay; absent = 404. */
  robots?: string | PageSpec;
  /** Key = path including query, matched exactly against the request target ('/', '/a?x=1'); string = 200 HTML body. */
  pages: Record<string, string | PageSpec>;
  /** Response time of every response (pages, robots.txt, 404s) that has no delayMs of its own. */
  defaultDelayMs?: number;
  /** Served for every path not in `pages` instead of a 404 (endless URL spaces: its `handler` reads req.url). */
  fallback?: PageSpec;
}

/** One request a site received. */
export interface RequestRecord {
  method: string;
  /** Request target as sent: path with query. */
  path: string;
  /** User-Agent header ('' when absent). */
  userAgent: string;
  /** Status code of the response (the intended one if the client went away first). */
  status: number;
  /** When the request arrived: performance.timeOrigin + performance.now(), float ms. */
  start: number;
  /** When the response finished (or the connection closed); NaN while still in flight. */
  end: number;
  /** True when the connection closed before the response finished. */
  aborted: boolean;
  /** Which TCP connection of this site it came on: 1 for the site's first accepted connection, and so on. */
  connection: number;
}

/** A running site. */
export interface TestSite {
  address: string;
  port: number;
  /** e.g. 'http://127.0.0.5:41234' */
  origin: string;
  /** e.g. '127.0.0.5:41234' (what Lantern's /api/domains calls host) */
  host: string;
  /** Absolute URL of a path on this site. */
  url(path: string): string;
  /** Every request, appended in order of arrival; records are completed in place when responses end. */
  log: RequestRecord[];
  /** Adds or replaces a page at runtime (re-crawl tests). */
  setPage(path: string, page: string | PageSpec): void;
  /** Replaces robots.txt at runtime; undefined makes it 404. */
  setRobots(robots: string | PageSpec | undefined): void;
  /** Records of requests whose target equals `path` exactly. */
  requestsTo(path: string): RequestRecord[];
}

/** All sites started together. */
export interface TestWeb {
  sites: TestSite[];
  /** Stops every site, destroying open connections; resolves once all servers are closed. */
  close(): Promise<void>;
}

/**
 * Server keep-alive, as long as common servers keep an idle connection (nginx 75 s): undici subtracts 2 s from
 * the server's hint, so at 4 s a gap of 2 s between two requests to a site (a loaded machine stalls the workers
 * that long) opened a new connection, and "each site sees one connection" (crawl-multi-site) went red for it.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 30_000;

/** Wall-clock based float milliseconds, the same clock the crawler primary uses. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

let nextHostIndex = 0;

/**
 * Next loopback address of this process: 127.0.0.2, 127.0.0.3, ..., 127.0.0.254, 127.0.1.1, ...,
 * 127.0.255.254, then again from 127.0.0.2. Ports are ephemeral, so reuse is harmless.
 */
function nextAddress(): string {
  const perBlock = 254; // last octet 1..254
  const total = 256 * perBlock - 1; // minus 127.0.0.1, which is left for the app itself
  const n = (nextHostIndex++ % total) + 1; // 1-based, skipping 127.0.0.1
  const hi = Math.floor(n / perBlock);
  const lo = (n % perBlock) + 1;
  return `127.0.${hi}.${lo}`;
}

const NOT_FOUND: PageSpec = {
  status: 404,
  body: '<!doctype html><html><head><title>Not found</title></head><body><h1>404 Not found</h1></body></html>\n',
};

function toPage(page: string | PageSpec): PageSpec {
  return typeof page === 'string' ? { body: page } : page;
}

/** Sends a PageSpec (after its delay) and keeps the pending timer cancellable. */
function respond(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  page: PageSpec,
  defaultContentType: string,
  defaultDelayMs: number,
): void {
  const status = page.status ?? 200;
  if (!page.handler) res.statusCode = status; // so an abort during the delay logs the intended status
  const send = (): void => {
    if (res.destroyed || res.writableEnded) return;
    if (page.handler) {
      try {
        page.handler(req, res);
      } catch (err) {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`test-web: handler threw: ${String(err)}\n`);
        } else {
          res.destroy();
        }
      }
      return;
    }
    const body = typeof page.body === 'string' ? Buffer.from(page.body) : (page.body ?? Buffer.alloc(0));
    const headers: Record<string, string> = { 'content-type': defaultContentType };
    for (const [name, value] of Object.entries(page.headers ?? {})) headers[name.toLowerCase()] = value;
    if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
      headers['content-length'] = String(body.length);
    }
    res.writeHead(status, headers);
    res.end(body);
  };
  const delay = page.delayMs ?? defaultDelayMs;
  if (delay > 0) {
    const timer = setTimeout(send, delay);
    res.once('close', () => clearTimeout(timer));
  } else {
    send();
  }
}

class Site implements TestSite {
  address: string;
  port = 0;
  /** The host name it answers to on a shared address (startNamedWeb); undefined: it is known by its address. */
  readonly name: string | undefined;
  log: RequestRecord[] = [];
  private pages = new Map<string, PageSpec>();
  private robots: PageSpec | undefined;
  private readonly fallback: PageSpec | undefined;
  private readonly defaultDelayMs: number;
  readonly server: http.Server;
  private connections = 0;
  private readonly connectionIds = new WeakMap<object, number>();

  constructor(spec: SiteSpec, address: string, name?: string) {
    this.address = address;
    this.name = name;
    this.defaultDelayMs = spec.defaultDelayMs ?? 0;
    this.fallback = spec.fallback;
    for (const [path, page] of Object.entries(spec.pages)) this.setPage(path, page);
    this.setRobots(spec.robots);
    this.server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, (req, res) => this.handle(req, res));
    this.server.on('connection', (socket) => this.connectionIds.set(socket, ++this.connections));
    this.server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  }

  get origin(): string {
    return `http://${this.host}`;
  }

  get host(): string {
    return `${this.name ?? this.address}:${this.port}`;
  }

  /** A connection accepted by the server this site shares with others of its address (startNamedWeb). */
  noteConnection(socket: object, id: number): void {
    this.connectionIds.set(socket, id);
  }

  url(path: string): string {
    return new URL(path, this.origin).href;
  }

  setPage(path: string, page: string | PageSpec): void {
    this.pages.set(path, toPage(page));
  }

  setRobots(robots: string | PageSpec | undefined): void {
    this.robots = robots === undefined ? undefined : toPage(robots);
  }

  requestsTo(path: string): RequestRecord[] {
    return this.log.filter((r) => r.path === path);
  }

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const record: RequestRecord = {
      method: req.method ?? '',
      path: req.url ?? '',
      userAgent: req.headers['user-agent'] ?? '',
      status: 0,
      start: now(),
      end: NaN,
      aborted: false,
      connection: this.connectionIds.get(req.socket) ?? 0,
    };
    this.log.push(record);
    // The end is the moment the last byte was handed to the kernel. 'finish' can fire well after that
    // on a loaded machine (it waits for the event loop), and even a clock read right after end() can
    // land late: the OS may keep this process off the CPU between the write and the read while the
    // crawler, on another core, has already read the response and moved on. Either would make a gap
    // look shorter than it was, so the clock is read just before end() and kept when end() handed the
    // whole response to the socket at once (small bodies); otherwise 'finish' (later, so stricter).
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      const before = now();
      const out = end(...args);
      if (Number.isNaN(record.end) && res.socket?.writableLength === 0) {
        record.end = before;
        record.status = res.statusCode;
      }
      return out;
    }) as typeof res.end;
    res.once('finish', () => {
      if (!Number.isNaN(record.end)) return;
      record.end = now();
      record.status = res.statusCode;
    });
    res.once('close', () => {
      if (!Number.isNaN(record.end)) return;
      record.end = now();
      record.status = res.statusCode;
      record.aborted = !res.writableFinished;
    });
    const path = record.path;
    if (path === '/robots.txt') {
      respond(req, res, this.robots ?? NOT_FOUND, 'text/plain; charset=utf-8', this.defaultDelayMs);
      return;
    }
    respond(
      req,
      res,
      this.pages.get(path) ?? this.fallback ?? NOT_FOUND,
      'text/html; charset=utf-8',
      this.defaultDelayMs,
    );
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, this.address, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}

/**
 * Starts one loopback HTTP server per spec, each on a fresh 127.x address with an ephemeral port.
 * Unknown paths get a 404 HTML page; HEAD works everywhere. If any site fails to start, the ones
 * already started are closed and the error is thrown.
 */
export async function startTestWeb(specs: SiteSpec[]): Promise<TestWeb> {
  const sites = specs.map((spec) => new Site(spec, nextAddress()));
  const started = await Promise.allSettled(sites.map((s) => s.listen()));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const close = async (): Promise<void> => {
    await Promise.all(sites.map((s) => s.close()));
  };
  if (failed) {
    await close();
    throw new Error(`test-web: could not start a site: ${String(failed.reason)}`);
  }
  return { sites, close };
}

/** Sites started by startNamedWeb: named hosts, several on one address, and the setting that resolves them. */
export interface NamedTestWeb extends TestWeb {
  /** Every name with its address, as CRAWL_RESOLVE takes them (`docs.site.test=127.0.0.7,...`). */
  resolve: string;
}

/**
 * Starts named sites: each entry of `addresses` is one loopback address with one port, serving several
 * host names told apart by the Host header (virtual hosts, as one server answers for `www.` and `docs.`
 * of a domain); each name is a site with its own pages and request log. The crawler reaches the names
 * through CRAWL_RESOLVE (`resolve`), never through the machine's resolver files. A request for a name
 * the address does not serve gets a 421. Sites are listed in the order given.
 */
export async function startNamedWeb(addresses: Array<Record<string, SiteSpec>>): Promise<NamedTestWeb> {
  const servers: http.Server[] = [];
  const sites: Site[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(
      servers.map((server) => {
        if (!server.listening) return undefined;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        return closed;
      }),
    );
  };
  try {
    for (const names of addresses) {
      const address = nextAddress();
      const byName = new Map(
        Object.entries(names).map(([name, spec]) => [name.toLowerCase(), new Site(spec, address, name.toLowerCase())]),
      );
      sites.push(...byName.values());
      let connections = 0;
      const server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, (req, res) => {
        const site = byName.get((req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase());
        if (site) site.handle(req, res);
        else
          res
            .writeHead(421, { 'content-type': 'text/plain' })
            .end(`test-web: ${address} does not serve ${req.headers.host}\n`);
      });
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      server.on('connection', (socket) => {
        connections++;
        for (const site of byName.values()) site.noteConnection(socket, connections);
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, address, () => resolve()));
      const { port } = server.address() as AddressInfo;
      for (const site of byName.values()) site.port = port;
    }
  } catch (err) {
    await close();
    throw new Error(`test-web: could not start a named site: ${String(err)}`);
  }
  return { sites, close, resolve: sites.map((s) => `${s.name}=${s.address}`).join(',') };
}
