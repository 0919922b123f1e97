import fp from 'fastify-plugin';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeDatabaseUrl } from '../../db/pg/pg-server-store.ts';
import { describeStorageOutage, storageErrorAdvice, storageFault } from '../../db/storage-error.ts';
import { RouteMethods } from '../route-methods.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

/** The body of every error answer (docs/api.md): a code to branch on, a message for people. */
export const ErrorBodySchema = Type.Object({ error: Type.String(), message: Type.String() });
export type ErrorBody = Static<typeof ErrorBodySchema>;

/** A 4xx the route (or the input validation) wants to send with its own code and message, and headers if any. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

interface Answer {
  status: number;
  error: string;
  message: string;
}

/**
 * Fastify's own refusals, by Fastify's error code, each as a Lantern code and a message that says
 * what to send instead. Schema failures never reach this table: server/plugins/strict-input.ts turns
 * them into an HttpError with the field's own code and message.
 */
const FASTIFY_ANSWERS: Record<string, (request: FastifyRequest) => Answer> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => ({
    status: 415,
    error: 'unsupported-media-type',
    message: 'send the body as application/json',
  }),
  FST_ERR_CTP_BODY_TOO_LARGE: () => ({
    status: 413,
    error: 'body-too-large',
    message: 'the request body is too large',
  }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => ({
    status: 400,
    error: 'invalid-json',
    message: 'the body is empty; send a JSON object',
  }),
  FST_ERR_CTP_INVALID_JSON_BODY: () => ({ status: 400, error: 'invalid-json', message: 'the body is not valid JSON' }),
  FST_ERR_BAD_URL: () => ({
    status: 400,
    error: 'malformed-url',
    message:
      'error-handler: the address has a broken percent-encoding (a % must be followed by two hex digits, and the bytes must be UTF-8); encode it with encodeURIComponent',
  }),
  FST_ERR_MAX_PARAM_LENGTH: (request) => ({
    status: 414,
    error: 'url-too-long',
    message: `error-handler: a part of the address is longer than ${request.server.initialConfig.routerOptions?.maxParamLength ?? 100} characters; no seed id or host name is that long`,
  }),
};

/** Lantern's answer to one of Fastify's own errors, or undefined for an error that is not Fastify's refusal of a request. */
function fastifyAnswer(err: FastifyError, request: FastifyRequest): Answer | undefined {
  const known = FASTIFY_ANSWERS[err.code];
  if (known) return known(request);
  const status = err.statusCode ?? 500;
  if (status < 400 || status >= 500) return undefined;
  if (err.code?.startsWith('FST_ERR_CTP') || err instanceof SyntaxError)
    return { status, error: 'invalid-json', message: 'the body is not valid JSON' };
  return { status, error: 'bad-request', message: err.message };
}

/**
 * For Fastify's `frameworkErrors` option: the refusals Fastify makes before any route or hook runs (a
 * malformed percent-encoding, a parameter over maxParamLength) in Lantern's `{error, message}` shape,
 * with the headers every answer carries (no onRequest hook runs for them).
 */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const answer = fastifyAnswer(err, request) ?? { status: 400, error: 'bad-request', message: err.message };
  void reply.headers(SECURITY_HEADERS).code(answer.status).send({ error: answer.error, message: answer.message });
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The answer to a request no route took: `405 method-not-allowed` (with `Allow`) when a route has
     * that path for another method, else `404 not-found`. Thrown by the not-found handler.
     */
    routeMiss(method: string, path: string): HttpError;
  }
}

/**
 * One error handler for the whole API: client mistakes become a 4xx with a code and a message that
 * says what to fix (a route's own HttpError, a field's refusal from the schema, or one of Fastify's own
 * refusals); a database that cannot be written (full disk, read-only file) is a 503 that says so, and so
 * is PostgreSQL stopped or out of reach (`database-unreachable`, also noted for /api/status: storage-watch.ts);
 * anything else is logged and answered with a 500 that leaks nothing. It knows no route's fields.
 */
export default fp(
  async function errorHandler(app: FastifyInstance) {
    const routes = new RouteMethods();
    app.addHook('onRoute', (route) => routes.add(route.method, route.url));
    app.decorate('routeMiss', (method: string, path: string): HttpError => {
      const allowed = routes.allowed(path);
      if (allowed.length === 0) return new HttpError(404, 'not-found', `no route ${method} ${path}`);
      return new HttpError(
        405,
        'method-not-allowed',
        `error-handler: ${path} does not take ${method}; use ${allowed.join(', ')}`,
        {
          allow: allowed.join(', '),
        },
      );
    });

    app.setErrorHandler((err: FastifyError, request, reply) => {
      if (err instanceof HttpError) {
        return reply.code(err.statusCode).headers(err.headers).send({ error: err.code, message: err.message });
      }
      const answer = fastifyAnswer(err, request);
      if (answer !== undefined) return reply.code(answer.status).send({ error: answer.error, message: answer.message });
      const url = app.hasDecorator('config') ? app.config.databaseUrl : null;
      const fault = storageFault(err, url === null ? 'sqlite' : 'postgres');
      if (fault !== null && fault.engine === 'postgres' && url !== null) {
        // PostgreSQL stopped, out of reach or out of room: /api/status shows it as state; the person tries again later.
        const at = Date.now();
        if (app.hasDecorator('storageWatch')) app.storageWatch.failed(fault, at);
        // With LANTERN_SECRET, Lantern may be exposed and this answer may go to someone not signed in (a sign-in,
        // a session's check): PostgreSQL's address and user are not theirs to learn. /api/status (signed in) has them.
        const named = app.config.secret === null;
        const { reason } = describeStorageOutage(fault, {
          since: at,
          where: describeDatabaseUrl(url),
          seenBy: 'server',
        });
        const what = named
          ? reason
          : fault.reachable
            ? 'PostgreSQL answers but cannot write'
            : 'PostgreSQL does not answer';
        const more = named ? '' : '; signed in, GET /api/status says more';
        request.log.error({ err }, 'error-handler: PostgreSQL did not answer or refused a statement');
        return reply
          .code(503)
          .header('retry-after', '10')
          .send(
            fault.reachable
              ? {
                  error: 'storage-unavailable',
                  message: `error-handler: the database refuses writes: ${what}; nothing was saved; try again once PostgreSQL has room again${more}`,
                }
              : {
                  error: 'database-unreachable',
                  message: `error-handler: the database is unreachable: ${what}; nothing was saved; try again in a moment (Lantern reconnects by itself once it answers)${more}`,
                },
          );
      }
      if (fault !== null) {
        // The machine's trouble, not a bug: say what is wrong and that nothing was saved, so the person can act and retry.
        const where = app.hasDecorator('config') ? app.config.dataDir : 'DATA_DIR';
        request.log.error({ err }, 'error-handler: the database refused a write');
        return reply
          .code(503)
          .header('retry-after', '10')
          .send({
            error: 'storage-unavailable',
            message: `${storageErrorAdvice(where, fault.detail)} Nothing was saved; try again once the disk has space or the file is writable.`,
          });
      }
      request.log.error({ err }, 'error-handler: unexpected error');
      return reply
        .code(500)
        .send({ error: 'internal', message: 'Lantern hit an internal error; the server log has the details' });
    });
  },
  { name: 'error-handler' },
);
