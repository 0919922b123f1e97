import fp from 'fastify-plugin';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './error-handler.ts';
import { DeferredCompiles } from './deferred-compile.ts';

/**
 * How long after the server starts listening the validators no request has needed yet are compiled
 * (one per turn of the event loop): long enough for a browser's first page load to go first.
 */
export const COMPILE_AFTER_LISTEN_MS = 1000;

/** A route's schema that Ajv could not compile: a bug of that route, answered 500 (the error handler hides the detail). */
export class SchemaCompileError extends Error {
  readonly statusCode = 500;
  override name = 'SchemaCompileError';
}

declare module 'fastify' {
  interface FastifyInstance {
    /** How many route validators are still to be compiled (none once the server has listened a while). */
    readonly validatorsPending: number;
  }
}

/** What a schema property answers when its value is refused: the `{error, message}` of the 400. */
export interface FieldRefusal {
  error: string;
  message: string;
}

/**
 * Schema options that give a field its own error code and message, kept with the route that declares
 * the field: `Type.Integer({ minimum: 0, ...onInvalid('invalid-depth', 'depth must be ...') })`.
 * Used for every refusal of that field: wrong type, out of range, too long, missing.
 */
export function onInvalid(error: string, message: string): { onInvalid: FieldRefusal } {
  return { onInvalid: { error, message } };
}

/** How each part of a request is named, and the code a refusal gets when its field carries none. */
const PARTS: Record<string, { name: string; code: string }> = {
  body: { name: 'body', code: 'invalid-body' },
  querystring: { name: 'query string', code: 'invalid-query' },
  params: { name: 'path', code: 'invalid-path' },
  headers: { name: 'headers', code: 'invalid-headers' },
};

/** A whole number as a person writes it: plain decimal digits, no sign, no leading zero, no exponent (and at most 15 digits, so exact). */
const WHOLE_NUMBER = /^(0|[1-9][0-9]{0,14})$/;

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; onInvalid?: FieldRefusal };

function saysNumber(schema: Schema | undefined): boolean {
  const types = schema?.type === undefined ? [] : ([] as string[]).concat(schema.type);
  return types.includes('integer') || types.includes('number');
}

/** The top-level fields of a query string or path schema that hold numbers. */
function numberFields(schema: Schema): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, s]) => saysNumber(s))
    .map(([name]) => name);
}

/**
 * Query strings and paths arrive as text: a number field's text becomes a number only when it is a
 * plain whole number (`10`, not `1e1`, `0x10`, `010`, `1.0` or ` 1`); anything else stays text, and
 * the schema then refuses it with the field's own answer. Bodies are JSON and are never converted.
 */
function readNumbers(data: unknown, fields: readonly string[]): void {
  if (data === null || typeof data !== 'object') return;
  const record = data as Record<string, unknown>;
  for (const name of fields) {
    const value = record[name];
    if (typeof value === 'string' && WHOLE_NUMBER.test(value)) record[name] = Number(value);
  }
}

function listed(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * The answer to a value the schema refused, read from the schema itself: the failing field's own
 * `onInvalid` (for a missing field, the one of that field's schema); an unknown field names the
 * fields there are; anything else says the part and what the schema wanted.
 */
function refusalOf(error: ErrorObject | undefined, httpPart: string): HttpError {
  const part = PARTS[httpPart] ?? { name: httpPart, code: 'bad-request' };
  const parent = error?.parentSchema as Schema | undefined;
  const params = (error?.params ?? {}) as { missingProperty?: string; additionalProperty?: string };
  if (error?.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
    const names = Object.keys(parent?.properties ?? {});
    return new HttpError(
      400,
      part.code,
      `unknown field ${JSON.stringify(params.additionalProperty)}; send ${listed(names)} only`,
    );
  }
  const own =
    error?.keyword === 'required' && params.missingProperty !== undefined
      ? parent?.properties?.[params.missingProperty]?.onInvalid
      : parent?.onInvalid;
  if (own !== undefined) return new HttpError(400, own.error, own.message);
  const where = error?.instancePath ? `${part.name} field ${JSON.stringify(error.instancePath.slice(1))}` : part.name;
  return new HttpError(400, part.code, `${where} ${error?.message ?? 'is invalid'}`);
}

/** The charsets a JSON body may be declared in (RFC 8259: JSON exchanged between systems is UTF-8). */
const UTF8 = new Set(['utf-8', 'utf8']);

/** The refusal of a JSON body declared in another charset than UTF-8, or null when it may be read. */
function charsetRefusal(contentType: string | undefined): HttpError | null {
  const param = (contentType ?? '')
    .split(';')
    .slice(1)
    .map((p) => p.trim().split('='))
    .find(([name]) => name.trim().toLowerCase() === 'charset');
  if (param === undefined) return null;
  const charset = (param[1] ?? '').trim().replace(/^"(.*)"$/, '$1');
  if (UTF8.has(charset.toLowerCase())) return null;
  return new HttpError(
    415,
    'unsupported-charset',
    `strict-input: the body is declared as charset=${charset.replace(/[^\w.:-]/g, '?').slice(0, 40)}; send JSON as UTF-8 (application/json, or application/json; charset=utf-8)`,
  );
}

/** The one Ajv of the API: no coercion, unknown fields kept (so that they are refused), defaults filled in. */
function strictAjv(): Ajv {
  const ajv = new Ajv({
    coerceTypes: false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    verbose: true,
  });
  ajv.addKeyword({
    keyword: 'onInvalid',
    schemaType: 'object',
    metaSchema: {
      type: 'object',
      properties: { error: { type: 'string' }, message: { type: 'string' } },
      required: ['error', 'message'],
      additionalProperties: false,
    },
  });
  return ajv;
}

/**
 * Input is read as written, never guessed at: one Ajv for the whole API, without type coercion (a
 * body's `"2"` is not a depth, `["https://…"]` is not a URL), unknown fields kept so that they are
 * refused, defaults filled in; query strings and paths turned from text into numbers only where the
 * schema wants a whole number and the text is one. Every refusal is an HttpError carrying the field's
 * own code and message (see onInvalid), which the one error handler sends. A JSON body declared in a
 * charset other than UTF-8 is refused with a 415 before it is parsed.
 *
 * Compiling the Ajv and every route's schema is most of what building the app costs (a few hundred
 * milliseconds on a small machine), and no first answer needs it: each validator is compiled at its
 * route's first request, or COMPILE_AFTER_LISTEN_MS after the server listens, one per turn of the event
 * loop, whichever comes first. A schema that does not compile answers 500 (SchemaCompileError) and is logged.
 */
export default fp(
  async function strictInput(app: FastifyInstance) {
    let ajv: Ajv | undefined;
    const compiles = new DeferredCompiles();
    app.decorate('validatorsPending', { getter: () => compiles.pending });
    app.setValidatorCompiler(({ schema, httpPart, method, url }) => {
      const part = httpPart ?? 'body';
      const numbers = part === 'body' ? [] : numberFields(schema as Schema);
      const validator = compiles.add<ValidateFunction>(() => {
        ajv ??= strictAjv();
        try {
          return ajv.compile(schema as object);
        } catch (err) {
          throw new SchemaCompileError(`strict-input: the ${part} schema of ${method} ${url} does not compile`, {
            cause: err,
          });
        }
      });
      return (data: unknown) => {
        let validate: ValidateFunction;
        try {
          validate = validator.get();
        } catch (err) {
          if (err instanceof SchemaCompileError) return { error: err };
          throw err;
        }
        readNumbers(data, numbers);
        return validate(data) ? { value: data } : { error: refusalOf(validate.errors?.[0], part) };
      };
    });

    let timer: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    const compileRest = () => {
      try {
        if (!compiles.compileNext()) return;
      } catch (err) {
        if (!(err instanceof SchemaCompileError)) throw err;
        app.log.error({ err }, `${err.message}; its requests are answered 500`);
      }
      immediate = setImmediate(compileRest).unref();
    };
    app.addHook('onListen', async () => {
      timer ??= setTimeout(compileRest, COMPILE_AFTER_LISTEN_MS).unref();
    });
    app.addHook('onClose', async () => {
      clearTimeout(timer);
      clearImmediate(immediate);
    });

    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser<string>('application/json', { parseAs: 'string' }, (request, body, done) => {
      const refused = charsetRefusal(request.headers['content-type']);
      if (refused !== null) return done(refused, undefined);
      return parseJson(request, body, done);
    });
  },
  { name: 'strict-input' },
);
