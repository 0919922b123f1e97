import type { FastifyInstance } from 'fastify';
import { requestScheme } from '../request-scheme.ts';

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `/opensearch.xml`: lets a browser add Lantern as a search engine, with its suggestion URL. */
export async function opensearchRoutes(app: FastifyInstance): Promise<void> {
  app.get('/opensearch.xml', async (request, reply) => {
    const base = escapeXml(
      `${requestScheme(request)}://${request.headers.host ?? `${app.config.host}:${app.config.port}`}`,
    );
    reply.type('application/opensearchdescription+xml; charset=utf-8');
    return `<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <ShortName>Lantern</ShortName>
  <Description>Search the pages your Lantern crawled</Description>
  <InputEncoding>UTF-8</InputEncoding>
  <Url type="text/html" method="get" template="${base}/?q={searchTerms}"/>
  <Url type="application/x-suggestions+json" method="get" template="${base}/api/suggest?q={searchTerms}&amp;format=opensearch"/>
</OpenSearchDescription>
`;
  });
}
