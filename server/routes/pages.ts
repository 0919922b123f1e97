import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { checkUrl } from '../../crawler/common/url.ts';
import { nullableString } from '../../shared/json-schema.ts';
import { ErrorBodySchema, HttpError } from '../plugins/error-handler.ts';
import { URL_FIELD } from './seeds.ts';

/** Most characters of a page's text one answer carries (the rest is cut, and `truncated` says so). */
export const STORED_TEXT_MAX_CHARS = 200_000;

/** A page's stored text (docs/api.md, Stored text): what Lantern indexed, as plain text. */
export const StoredPageSchema = Type.Object({
  url: Type.String(),
  finalUrl: Type.String(),
  host: Type.String(),
  title: Type.String(),
  description: Type.String(),
  headings: Type.Array(Type.String()),
  text: Type.String(),
  /** The text was longer than the answer carries. */
  truncated: Type.Boolean(),
  lang: nullableString(),
  status: Type.Integer(),
  fetchedAt: Type.String(),
});
export type StoredPage = Static<typeof StoredPageSchema>;

const StoredPageQuerySchema = Type.Object({ url: Type.String({ minLength: 1, maxLength: 4096, ...URL_FIELD }) });

/**
 * `GET /api/pages?url=URL`: the text Lantern stored for a searchable page, as it was when fetched
 * (plain text, never the page's HTML), so a person can read what was indexed even when the site has
 * changed or is gone. Pages out of search (noindex, gone, a removed seed's) are not shown, nor the text
 * of a page that asked for no stored copy (noarchive: 403, as its site owner wished).
 */
export async function pageRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/pages',
    {
      schema: {
        querystring: StoredPageQuerySchema,
        response: { 200: Type.Object({ page: StoredPageSchema }), '4xx': ErrorBodySchema },
      },
    },
    async (request) => {
      // Normalized as the crawler stored it; any address, since this only looks a page up.
      const checked = checkUrl(request.query.url, { allowPrivate: true });
      if (!checked.ok) throw new HttpError(400, checked.code, checked.message);
      const page = await app.pages.getPage(checked.url);
      if (page === undefined || !page.indexed) {
        throw new HttpError(
          404,
          'unknown-page',
          `pages: no searchable page stored for ${checked.url}; search for it, or add its site as a seed`,
        );
      }
      if (page.noarchive) {
        throw new HttpError(
          403,
          'no-archive',
          `pages: ${checked.url} asks that its stored copy not be shown (noarchive); open the page itself`,
        );
      }
      const truncated = page.body.length > STORED_TEXT_MAX_CHARS;
      return {
        page: {
          url: page.url,
          finalUrl: page.finalUrl,
          host: page.host,
          title: page.title,
          description: page.description,
          headings: page.headings,
          text: truncated ? page.body.slice(0, STORED_TEXT_MAX_CHARS) : page.body,
          truncated,
          lang: page.lang,
          status: page.status,
          fetchedAt: new Date(page.fetchedAt).toISOString(),
        },
      };
    },
  );
}
