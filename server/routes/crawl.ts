import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { CrawlStatusSchema, DomainInfoSchema, RequestLogEntrySchema } from '../../crawler/coordination/protocol.ts';
import { CRAWLER_STATES } from '../../shared/enumerations.ts';
import { nullableString, stringEnum } from '../../shared/json-schema.ts';
import { ErrorBodySchema, HttpError } from '../plugins/error-handler.ts';

/** `GET /api/status`: the crawler's own figures (crawler/coordination/protocol.ts) with the server's. */
export const StatusSchema = Type.Object({
  /** Stored pages. */
  pages: Type.Integer(),
  /** Pages searchable. */
  indexed: Type.Integer(),
  ...CrawlStatusSchema.properties,
  crawler: stringEnum(CRAWLER_STATES),
  searchReady: Type.Boolean(),
  lastError: nullableString(),
});
export type Status = Static<typeof StatusSchema>;

/** `GET /api/domains`: every host's row as the crawler reported it; `now` is the server's clock (for the client's skew). */
export const DomainsResponseSchema = Type.Object({ domains: Type.Array(DomainInfoSchema), now: Type.String() });
export type DomainsResponse = Static<typeof DomainsResponseSchema>;

/** `GET /api/domains/:host/requests`: the last requests to one host, oldest first. */
export const HostRequestsResponseSchema = Type.Object({ host: Type.String(), requests: Type.Array(RequestLogEntrySchema) });
export type HostRequestsResponse = Static<typeof HostRequestsResponseSchema>;

/** A host as GET /api/domains names it; its length is bounded by the router (maxParamLength). */
const HostParamsSchema = Type.Object({ host: Type.String() });

/** `/api/status`, `/api/domains` and a host's request timeline: the crawler's live state, as it last reported it. */
export async function crawlRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/api/status', { schema: { response: { 200: StatusSchema } } }, async () => {
    const counts = app.pages.countPages();
    return {
      pages: counts.pages,
      indexed: counts.indexed,
      ...app.crawler.status,
      crawler: app.crawler.state,
      searchReady: app.searcher.ready,
      lastError: app.crawler.lastError,
    };
  });

  app.get('/api/domains', { schema: { response: { 200: DomainsResponseSchema } } },
    async () => ({ domains: app.crawler.domains, now: new Date().toISOString() }));

  app.get('/api/domains/:host/requests', {
    schema: { params: HostParamsSchema, response: { 200: HostRequestsResponseSchema, '4xx': ErrorBodySchema } },
  }, async (request) => {
    const domain = app.crawler.domains.find((d) => d.host === request.params.host);
    if (!domain) throw new HttpError(404, 'unknown-host', `no crawled host ${JSON.stringify(request.params.host)}; see GET /api/domains`);
    return { host: domain.host, requests: await app.crawler.requests(domain.origin) };
  });
}
