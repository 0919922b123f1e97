/**
 * Hostile pages for the test web: servers that answer too slowly, too much, or not at all. Each builder
 * returns a PageSpec (its `handler` owns the raw response) with a `transfers` list that records, per
 * request, how many body bytes the server actually handed to the socket and whether the client hung up
 * first, so a test can prove from the server's side that the crawler stopped reading.
 */
import net from 'node:net';
import http from 'node:http';
import zlib from 'node:zlib';
import type { PageSpec } from './test-web.ts';

/** What the server did for one request of a hostile page. */
export interface Transfer {
  /** Body bytes written to the socket (compressed bytes, for the bombs). */
  written: number;
  /** True once the server wrote the whole body it meant to send. */
  complete: boolean;
  /** True when the connection closed before the body was complete (the client gave up). */
  cutOff: boolean;
  /** When the request arrived, and when the connection closed or the body completed (performance clock, ms). */
  start: number;
  end: number;
}

/** A page whose handler records its transfers. */
export type HostilePage = PageSpec & { transfers: Transfer[] };

const clock = () => performance.timeOrigin + performance.now();

/** Starts recording a request: the transfer is closed when the connection goes away. */
function track(res: http.ServerResponse, transfers: Transfer[], onClose: () => void = () => undefined): Transfer {
  const t: Transfer = { written: 0, complete: false, cutOff: false, start: clock(), end: NaN };
  transfers.push(t);
  res.once('close', () => {
    onClose();
    if (!t.complete) {
      t.cutOff = true;
      t.end = clock();
    }
  });
  return t;
}

/**
 * Writes `total` bytes made of `chunk` repeated (the last one cut), respecting backpressure, so the
 * server only produces what the client actually reads (plus socket buffers). Ends the response after.
 */
function stream(res: http.ServerResponse, t: Transfer, chunk: Buffer, total: number): void {
  const pump = (): void => {
    while (t.written < total) {
      if (res.destroyed) return;
      const piece = total - t.written >= chunk.length ? chunk : chunk.subarray(0, total - t.written);
      t.written += piece.length;
      if (!res.write(piece)) {
        res.once('drain', pump);
        return;
      }
    }
    t.complete = true;
    t.end = clock();
    res.end();
  };
  pump();
}

/** Headers only after `delayMs` (20 s in the issue): the crawler's header timeout must end the wait. */
export function lateHeaders(delayMs = 20_000): HostilePage {
  const transfers: Transfer[] = [];
  return {
    transfers,
    handler: (_req, res) => {
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<title>Late</title><p>finally</p>');
        t.complete = true;
        t.end = clock();
      }, delayMs);
      const t = track(res, transfers, () => clearTimeout(timer));
    },
  };
}

/** Headers at once, then one byte of HTML every `intervalMs` (1 s), never finishing. */
export function drip(intervalMs = 1000): HostilePage {
  const transfers: Transfer[] = [];
  return {
    transfers,
    handler: (_req, res) => {
      const timer = setInterval(() => {
        res.write('x');
        t.written++;
      }, intervalMs);
      const t = track(res, transfers, () => clearInterval(timer));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<');
      t.written++;
    },
  };
}

/** A chunked HTML body that never ends: `chunkBytes` every `intervalMs`, forever. */
export function endlessBody(chunkBytes = 1024, intervalMs = 50): HostilePage {
  const transfers: Transfer[] = [];
  const chunk = Buffer.from(`<p>${'more and more '.repeat(Math.ceil(chunkBytes / 14))}`.slice(0, chunkBytes));
  return {
    transfers,
    handler: (_req, res) => {
      const timer = setInterval(() => {
        res.write(chunk);
        t.written += chunk.length;
      }, intervalMs);
      const t = track(res, transfers, () => clearInterval(timer));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    },
  };
}

/** A `bytes`-long HTML body (100 MiB in the issue), with a true Content-Length or chunked. */
export function hugeBody(bytes: number, opts: { contentLength: boolean }): HostilePage {
  const transfers: Transfer[] = [];
  const chunk = Buffer.from(`<p>${'lorem ipsum dolor sit amet '.repeat(2500)}</p>\n`);
  return {
    transfers,
    handler: (_req, res) => {
      const t = track(res, transfers);
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        ...(opts.contentLength ? { 'content-length': String(bytes) } : {}),
      });
      stream(res, t, chunk, bytes);
    },
  };
}

/**
 * A compression bomb: `inflatedBytes` of zeros (1 GiB in the issue) served with Content-Encoding gzip or
 * br. Built cheaply: gzip as a run of identical 1 MiB members (a valid multi-member gzip stream, about
 * 1 KiB each), brotli by streaming zeros through the fast quality-1 encoder (about 0.2 s and 190 KiB per GiB).
 */
export async function compressionBomb(
  encoding: 'gzip' | 'br',
  inflatedBytes: number,
): Promise<HostilePage & { compressedBytes: number }> {
  const MiB = 1024 * 1024;
  let body: Buffer;
  if (encoding === 'gzip') {
    const member = zlib.gzipSync(Buffer.alloc(MiB), { level: 9 });
    body = Buffer.concat(Array.from({ length: Math.ceil(inflatedBytes / MiB) }, () => member));
  } else {
    const encoder = zlib.createBrotliCompress({
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: inflatedBytes },
    });
    const out: Buffer[] = [];
    encoder.on('data', (c: Buffer) => out.push(c));
    const ended = new Promise((resolve, reject) => encoder.on('end', resolve).on('error', reject));
    const zeros = Buffer.alloc(MiB);
    let fed = 0;
    const feed = (): void => {
      while (fed < inflatedBytes) {
        const n = Math.min(MiB, inflatedBytes - fed);
        fed += n;
        if (!encoder.write(n === MiB ? zeros : zeros.subarray(0, n))) {
          encoder.once('drain', feed);
          return;
        }
      }
      encoder.end();
    };
    feed();
    await ended;
    body = Buffer.concat(out);
  }
  const transfers: Transfer[] = [];
  return {
    transfers,
    compressedBytes: body.length,
    handler: (_req, res) => {
      const t = track(res, transfers);
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-encoding': encoding,
        'content-length': String(body.length),
      });
      stream(res, t, body, body.length);
    },
  };
}

/** An HTML page of `bytes` bytes on one single line (no newline anywhere): many short words in one <p>. */
export function singleLineHtml(bytes: number): Buffer {
  const head = '<!doctype html><html><head><title>One long line</title></head><body><h1>One long line</h1><p>';
  const tail = '</p></body></html>';
  const words = 'lantern single line page text with many words ';
  const fill = bytes - head.length - tail.length;
  return Buffer.from(head + words.repeat(Math.ceil(fill / words.length)).slice(0, fill) + tail);
}

/** Headers and `afterBytes` of a chunked body, then a TCP reset (RST) in the middle of the answer. */
export function resetMidBody(afterBytes = 4096): HostilePage {
  const transfers: Transfer[] = [];
  return {
    transfers,
    handler: (req, res) => {
      const t = track(res, transfers);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write(
        Buffer.from(`<!doctype html><title>Reset</title><p>${'x'.repeat(afterBytes)}`).subarray(0, afterBytes),
        () => {
          t.written = afterBytes;
          req.socket.resetAndDestroy();
        },
      );
    },
  };
}

/** A port on `address` with nothing listening (bound once to get a free port, then closed). */
export async function deadPort(address: string): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, address, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A site that answers its robots.txt, then goes down (stops listening): every later request is refused. */
export interface VanishingSite {
  origin: string;
  host: string;
  url(path: string): string;
  /** Paths requested while it was up. */
  requests: string[];
  close(): Promise<void>;
}

/** Starts a site on `address` that allows everything in robots.txt and stops listening right after serving it. */
export async function startVanishingSite(address: string): Promise<VanishingSite> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    res.once('finish', () => {
      server.close();
      server.closeAllConnections();
    });
    if (req.url === '/robots.txt')
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<title>Up</title>');
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, address, resolve));
  const host = `${address}:${(server.address() as net.AddressInfo).port}`;
  return {
    origin: `http://${host}`,
    host,
    url: (p) => new URL(p, `http://${host}`).href,
    requests,
    close: async () => {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
