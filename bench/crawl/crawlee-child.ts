/**
 * One process of the side-by-side (forked by crawlee-side.ts): a plain crawlee CheerioCrawler, in a
 * process of its own so that its CPU time is its own. On `crawl` it crawls from the given roots,
 * enqueueing same-origin links, and in its request handler takes what Lantern extracts at least (the
 * title and the body's text; enqueueLinks reads the links). Storage is crawlee's MemoryStorage with
 * persistStorage off; its directory is the one the parent names, which the parent checks stays empty.
 */
import { CheerioCrawler, type CheerioCrawlerOptions, Configuration, LogLevel, log } from '@crawlee/cheerio';
import { OnePerHostCheerioCrawler } from './crawlee-one-per-host.ts';

/** How crawlee is held: its defaults, or at most one request in flight per host. */
export type CrawleeVariant = 'default' | 'one-per-host';

/** Messages to the crawlee child. */
export type ToCrawleeChild = {
  type: 'crawl';
  roots: string[];
  variant: CrawleeVariant;
  storageDir: string;
  /** crawlee's minConcurrency (undefined: its default, 1, as the benchmark runs it); tests raise it. */
  minConcurrency?: number;
};

/** Messages from the crawlee child: `ready` once loaded, then one `crawled` per `crawl`. */
export type FromCrawleeChild =
  | { type: 'ready' }
  | {
      type: 'crawled';
      /** Pages whose request handler ran (each URL once: crawlee's queue deduplicates). */
      handled: number;
      /** Requests that failed for good, and the first error message. */
      failed: number;
      firstError: string | undefined;
      /** Characters of title and body text extracted, summed (so the work cannot be optimized away). */
      textChars: number;
      /** When the last request handler ended (performance.timeOrigin + performance.now(), as the test web logs). */
      lastHandledAt: number;
      /** This process's CPU over crawler.run() (ms; threads included), for when /proc cannot be read. */
      cpuMs: number;
      /** Requests parked by the one-per-host gate and never released (must be 0). */
      parked: number;
      /**
       * The crawler's own count of requests in flight, from just before each request is sent (preNavigationHooks)
       * to its handler's start or its failure (so it includes the body's parse: an upper bound): the most
       * for one host and over all hosts. The sites' logs cannot show this on loopback, where the single-threaded
       * test web serves each request in one go.
       */
      maxInFlightPerHost: number;
      maxInFlight: number;
    };

const now = () => performance.timeOrigin + performance.now();

function send(msg: FromCrawleeChild): void {
  if (process.connected) process.send!(msg);
}

async function crawl(msg: ToCrawleeChild): Promise<void> {
  let handled = 0;
  let failed = 0;
  let firstError: string | undefined;
  let textChars = 0;
  let lastHandledAt = Number.NaN;
  const inFlight = new Map<string, string>(); // uniqueKey → host
  const perHost = new Map<string, number>();
  let maxInFlight = 0;
  let maxInFlightPerHost = 0;
  const sent = (key: string, url: string) => {
    const host = new URL(url).host;
    inFlight.set(key, host);
    const n = (perHost.get(host) ?? 0) + 1;
    perHost.set(host, n);
    maxInFlightPerHost = Math.max(maxInFlightPerHost, n);
    maxInFlight = Math.max(maxInFlight, inFlight.size);
  };
  const ended = (key: string) => {
    const host = inFlight.get(key);
    if (host === undefined) return; // already counted out (a handler that threw, then its error handler)
    inFlight.delete(key);
    perHost.set(host, (perHost.get(host) ?? 1) - 1);
  };
  // A configuration of its own per crawl: a fresh in-memory queue, nothing written to disk.
  const config = new Configuration({
    persistStorage: false,
    storageClientOptions: { localDataDirectory: msg.storageDir },
  });
  const options: CheerioCrawlerOptions = {
    ...(msg.minConcurrency === undefined ? {} : { minConcurrency: msg.minConcurrency }),
    preNavigationHooks: [({ request }) => sent(request.uniqueKey, request.url)],
    async requestHandler({ request, $, enqueueLinks }) {
      ended(request.uniqueKey);
      textChars += $('title').text().length + $('body').text().length;
      await enqueueLinks({ strategy: 'same-origin' });
      handled++;
      lastHandledAt = now();
    },
    errorHandler({ request }) {
      ended(request.uniqueKey); // to be retried: sent again through preNavigationHooks
    },
    failedRequestHandler({ request }, err) {
      ended(request.uniqueKey);
      failed++;
      firstError ??= `${request.url}: ${err.message}`;
    },
  };
  const crawler =
    msg.variant === 'one-per-host'
      ? new OnePerHostCheerioCrawler(options, config)
      : new CheerioCrawler(options, config);
  const cpu0 = process.cpuUsage();
  await crawler.run(msg.roots);
  const cpu = process.cpuUsage(cpu0);
  send({
    type: 'crawled',
    handled,
    failed,
    firstError,
    textChars,
    lastHandledAt,
    cpuMs: (cpu.user + cpu.system) / 1000,
    parked: crawler instanceof OnePerHostCheerioCrawler ? crawler.parkedRequests() : 0,
    maxInFlightPerHost,
    maxInFlight,
  });
}

log.setLevel(LogLevel.WARNING); // crawlee's periodic statistics would fill the benchmark's output

process.on('message', (msg: ToCrawleeChild) => {
  crawl(msg).catch((err: unknown) => {
    process.stderr.write(`crawlee-child: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
