import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { nullableString } from '../../shared/json-schema.ts';
import { ErrorBodySchema, HttpError } from '../plugins/error-handler.ts';
import { onInvalid } from '../plugins/strict-input.ts';
import { refuseTooMany } from '../plugins/auth.ts';

/** The longest secret a sign-in may send (LANTERN_SECRET is at most 1024 characters). */
const MAX_SECRET_CHARS = 1024;

/** What every `/api/session` route answers (docs/api.md, "Sign-in"). */
export const SessionSchema = Type.Object({
  /** A secret is set: the API needs a session or Bearer. */
  required: Type.Boolean(),
  signedIn: Type.Boolean(),
  expiresAt: nullableString(),
});
export type Session = Static<typeof SessionSchema>;

const BODY_HINT = onInvalid(
  'invalid-body',
  `session: send {"secret": "..."} as JSON, the secret as text of 1 to ${MAX_SECRET_CHARS} characters, and nothing else`,
);

/** The body of `POST /api/session`. */
export const SignInSchema = Type.Object(
  {
    secret: Type.String({ minLength: 1, maxLength: MAX_SECRET_CHARS, ...BODY_HINT }),
  },
  { additionalProperties: false, ...BODY_HINT },
);

/**
 * The sign-in session (with LANTERN_SECRET set; server/plugins/auth.ts): `GET /api/session` says whether
 * a sign-in is needed and whether this browser has one, `POST /api/session` signs in with the secret,
 * `DELETE /api/session` signs out. All three are public: they are how a person gets in.
 */
export async function sessionRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const answer = (signedIn: boolean, expiresAt: number | null) => ({
    required: app.auth.required,
    signedIn,
    expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
  });

  app.get(
    '/api/session',
    {
      config: { public: true },
      schema: { response: { 200: SessionSchema } },
    },
    async (request) => {
      const session = await app.auth.session(request);
      return answer(session !== null, session?.expiresAt ?? null);
    },
  );

  app.post(
    '/api/session',
    {
      config: { public: true },
      bodyLimit: 4 * 1024,
      schema: { body: SignInSchema, response: { 200: SessionSchema, '4xx': ErrorBodySchema } },
    },
    async (request, reply) => {
      if (!app.auth.required) {
        throw new HttpError(
          409,
          'no-secret',
          'session: Lantern has no secret (LANTERN_SECRET is not set), so there is nothing to sign in to',
        );
      }
      const checked = app.auth.check(request, request.body.secret);
      if (!checked.ok && checked.retryAfterMs !== null) return refuseTooMany(reply, checked.retryAfterMs);
      if (!checked.ok)
        throw new HttpError(
          401,
          'wrong-secret',
          "session: that is not Lantern's secret; it is the value of LANTERN_SECRET where Lantern runs",
        );
      const { expiresAt } = await app.auth.startSession(request, reply);
      return answer(true, expiresAt);
    },
  );

  app.delete(
    '/api/session',
    {
      config: { public: true },
      schema: { response: { 200: SessionSchema } },
    },
    async (request, reply) => {
      await app.auth.endSession(request, reply);
      return answer(false, null);
    },
  );
}
