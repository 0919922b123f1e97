import type { FastifyInstance } from 'fastify';
import { errorSchema, HttpError } from '../plugins/error-handler.ts';

const nullableString = { type: ['string', 'null'] } as const;
const nullableInt = { type: ['integer', 'null'] } as const;

const domainSchema = {
  type: 'object',
  properties: {
    host: { type: 'string' }, origin: { type: 'string' }, state: { type: 'string' }, stateText: { type: 'string' },
    queued: { type: 'integer' }, fetched: { type: 'integer' }, errors: { type: 'integer' }, inFlight: { type: 'integer' },
    lastFetchAt: nullableString, nextFetchAt: nullableString, crawlDelayMs: { type: 'integer' },
    delaySource: { type: 'string' }, backoffUntil: nullableString, lastError: nullableString,
    robots: {
      type: 'object',
      properties: { status: { type: 'string' }, httpStatus: nullableInt, fetchedAt: nullableString, crawlDelayMs: nullableInt },
    },
  },
} as const;

/** `/api/status`, `/api/domains` and a host's request timeline: the crawler's live state, as it last reported it. */
export async function crawlRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/status', {
    schema: {
      response: {
        200: {
          type: 'object',
          properties: {
            pages: { type: 'integer' }, indexed: { type: 'integer' }, queued: { type: 'integer' }, inFlight: { type: 'integer' },
            workers: { type: 'integer' }, fetchRatePerMin: { type: 'number' }, crawler: { type: 'string' },
            searchReady: { type: 'boolean' }, lastError: nullableString,
            disk: {
              type: 'object',
              properties: {
                paused: { type: 'boolean' }, reason: nullableString, freeBytes: { type: ['number', 'null'] }, dbBytes: { type: ['number', 'null'] },
                minFreeBytes: { type: 'number' }, maxDbBytes: { type: 'number' }, checkedAt: nullableString,
              },
            },
          },
        },
      },
    },
  }, async () => {
    const counts = app.pages.countPages();
    return {
      pages: counts.pages,
      indexed: counts.indexed,
      ...app.crawler.status,
      crawler: app.crawler.state,
      searchReady: app.searcher.ready,
      lastError: app.crawler.lastError,
      disk: app.crawler.disk,
    };
  });

  app.get('/api/domains', {
    schema: {
      response: { 200: { type: 'object', properties: { domains: { type: 'array', items: domainSchema }, now: { type: 'string' } } } },
    },
  }, async () => ({ domains: app.crawler.domains, now: new Date().toISOString() }));

  app.get<{ Params: { host: string } }>('/api/domains/:host/requests', {
    schema: {
      params: { type: 'object', properties: { host: { type: 'string', maxLength: 300 } }, required: ['host'] },
      response: {
        200: {
          type: 'object',
          properties: {
            host: { type: 'string' },
            requests: {
              type: 'array',
              items: {
                type: 'object',
                properties: { url: { type: 'string' }, status: nullableInt, startedAt: { type: 'string' }, durationMs: { type: 'number' }, error: nullableString },
              },
            },
          },
        },
        '4xx': errorSchema,
      },
    },
  }, async (request) => {
    const domain = app.crawler.domains.find((d) => d.host === request.params.host);
    if (!domain) throw new HttpError(404, 'unknown-host', `no crawled host ${JSON.stringify(request.params.host)}; see GET /api/domains`);
    return { host: domain.host, requests: await app.crawler.requests(domain.origin) };
  });
}
