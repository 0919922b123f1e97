import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance } from 'fastify';
import { MAX_QUERY_CHARS } from '../search/query-parser.ts';
import { storageErrorAdvice, storageErrorDetail } from '../../db/storage-error.ts';

/** The body of every error answer. */
export const errorSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, message: { type: 'string' } },
  required: ['error', 'message'],
} as const;

/** A 4xx the route wants to send with its own code and message. */
export class HttpError extends Error {
  constructor(readonly statusCode: number, readonly code: string, message: string) {
    super(message);
  }
}

const FIELD_HINTS: Record<string, [string, string]> = {
  depth: ['invalid-depth', 'depth must be an integer from 0 to 10 (links followed from the seed)'],
  scope: ['invalid-scope', 'scope must be "path", "host", "domain" or "any"'],
  url: ['malformed', 'url must be a string such as "https://example.org/"'],
  q: ['invalid-query', `q must be given once, as text of at most ${MAX_QUERY_CHARS} characters`],
  limit: ['invalid-query', 'limit must be an integer from 1 to 50'],
  offset: ['invalid-query', 'offset must be an integer from 0 to 1000'],
  id: ['invalid-id', 'the seed id must be a whole number from 1 up, as GET /api/seeds lists it'],
};

function validationAnswer(err: FastifyError): { code: string; message: string } {
  const first = err.validation?.[0];
  const field = (first?.instancePath?.split('/')[1] || (first?.params as { missingProperty?: string } | undefined)?.missingProperty || '') as string;
  const extra = (first?.params as { additionalProperty?: string } | undefined)?.additionalProperty;
  if (extra) return { code: 'invalid-body', message: `unknown field "${extra}"; send url, depth and scope only` };
  const hint = FIELD_HINTS[field];
  if (hint) return { code: hint[0], message: hint[1] };
  const where = err.validationContext === 'querystring' ? 'query string' : err.validationContext ?? 'request';
  return { code: where === 'body' ? 'invalid-body' : 'invalid-query', message: `${where} ${first?.message ?? 'is invalid'}` };
}

/**
 * One error handler for the whole API: schema failures and client mistakes become a 4xx with a code and a
 * message that says what to fix; a database that cannot be written (full disk, read-only file) is a 503 that
 * says so; anything else is logged and answered with a 500 that leaks nothing.
 */
export default fp(async function errorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof HttpError) {
      return reply.code(err.statusCode).send({ error: err.code, message: err.message });
    }
    if (err.validation) {
      const { code, message } = validationAnswer(err);
      return reply.code(400).send({ error: code, message });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const known: Record<string, [string, string]> = {
        FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported-media-type', 'send the body as application/json'],
        FST_ERR_CTP_BODY_TOO_LARGE: ['body-too-large', 'the request body is too large'],
        FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid-json', 'the body is empty; send a JSON object'],
        FST_ERR_CTP_INVALID_JSON_BODY: ['invalid-json', 'the body is not valid JSON'],
      };
      const [code, message] = known[err.code] ?? (err.code?.startsWith('FST_ERR_CTP') || err instanceof SyntaxError
        ? ['invalid-json', 'the body is not valid JSON']
        : ['bad-request', err.message]);
      return reply.code(status).send({ error: code, message });
    }
    const storage = storageErrorDetail(err);
    if (storage !== null) {
      // The machine's trouble, not a bug: say what is wrong and that nothing was saved, so the person can act and retry.
      const where = app.hasDecorator('config') ? app.config.dataDir : 'DATA_DIR';
      request.log.error({ err }, 'error-handler: the database refused a write');
      return reply.code(503).header('retry-after', '10').send({
        error: 'storage-unavailable',
        message: `${storageErrorAdvice(where, storage)} Nothing was saved; try again once the disk has space or the file is writable.`,
      });
    }
    request.log.error({ err }, 'error-handler: unexpected error');
    return reply.code(500).send({ error: 'internal', message: 'Lantern hit an internal error; the server log has the details' });
  });

}, { name: 'error-handler' });
