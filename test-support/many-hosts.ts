/**
 * Thousands of hosts for the Domains view and `GET /api/domains`, without crawling thousands of sites:
 * rows as the crawler primary reports them (crawler/common/protocol.ts), set on a real app's
 * crawler link as a snapshot would set them. The app itself is real (every plugin and route, its web
 * build, a real database); only the crawler is absent, as while it restarts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { DomainInfo } from '../crawler/common/protocol.ts';
import { DOMAIN_STATES } from '../shared/enumerations.ts';
import { createTestApp } from '../server/test-app.ts';
import { freePort } from './app-process.ts';

/** `n` hosts `h0000.wild.example` ... in every state in turn, with counts and times that differ, at `now`. */
export function syntheticHosts(n: number, now = Date.now()): DomainInfo[] {
  return Array.from({ length: n }, (_, i) => {
    const state = DOMAIN_STATES[i % DOMAIN_STATES.length];
    const host = `h${String(i).padStart(4, '0')}.wild.example`;
    return {
      host,
      origin: `https://${host}`,
      state,
      stateText: state === 'idle' ? 'idle: nothing queued' : `${state} (row ${i})`,
      queued: (i * 7) % 50,
      fetched: (i * 13) % 1000,
      errors: i % 11 === 0 ? 2 : 0,
      inFlight: state === 'crawling' ? 1 : 0,
      lastFetchAt: i % 5 === 0 ? null : new Date(now - (i % 600) * 1000).toISOString(),
      nextFetchAt: state === 'waiting' ? new Date(now + (i % 30) * 1000).toISOString() : null,
      crawlDelayMs: 1000 + (i % 4) * 500,
      delaySource: 'default',
      delayText: `${(1 + (i % 4) * 0.5).toFixed(1)} s: the default delay`,
      group: { name: host, hosts: 1, inFlight: state === 'crawling' ? 1 : 0, lastFetchAt: null, nextFetchAt: null },
      backoffUntil: null,
      lastError: i % 11 === 0 ? `fetcher: ${host} answered HTTP 503` : null,
      robots: { status: 'ok', httpStatus: 200, fetchedAt: new Date(now - 3_600_000).toISOString(), crawlDelayMs: null },
    };
  });
}

/** A real app with its web build, listening on loopback, whose crawler link reports `hosts`. */
export interface AppWithHosts {
  baseURL: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** Starts the app (web/dist must be built) and sets its hosts; `close` stops it and removes its data. */
export async function startAppWithHosts(hosts: DomainInfo[]): Promise<AppWithHosts> {
  const port = await freePort();
  const webRoot = fileURLToPath(new URL('../web/dist', import.meta.url));
  const t = await createTestApp({ PORT: String(port), HOST: '127.0.0.1' }, { webRoot: path.resolve(webRoot) });
  t.app.crawler.domains = hosts;
  t.app.crawler.state = 'running';
  await t.app.listen({ port, host: '127.0.0.1' });
  return { baseURL: `http://127.0.0.1:${port}`, app: t.app, close: () => t.close() };
}
