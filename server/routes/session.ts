import type { FastifyInstance } from 'fastify';
import { errorSchema, HttpError } from '../plugins/error-handler.ts';
import { refuseTooMany } from '../plugins/auth.ts';

/** The longest secret a sign-in may send (LANTERN_SECRET is at most 1024 characters). */
const MAX_SECRET_CHARS = 1024;

const sessionSchema = {
  type: 'object',
  properties: {
    required: { type: 'boolean' },
    signedIn: { type: 'boolean' },
    expiresAt: { type: ['string', 'null'] },
  },
  required: ['required', 'signedIn', 'expiresAt'],
} as const;

/**
 * The sign-in session (with LANTERN_SECRET set; server/plugins/auth.ts): `GET /api/session` says whether
 * a sign-in is needed and whether this browser has one, `POST /api/session` signs in with the secret,
 * `DELETE /api/session` signs out. All three are public: they are how a person gets in.
 */
export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  const answer = (signedIn: boolean, expiresAt: number | null) => ({
    required: app.auth.required,
    signedIn,
    expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
  });

  app.get('/api/session', {
    config: { public: true },
    schema: { response: { 200: sessionSchema } },
  }, async (request) => {
    const session = app.auth.session(request);
    return answer(session !== null, session?.expiresAt ?? null);
  });

  app.post<{ Body: { secret: string } }>('/api/session', {
    config: { public: true },
    bodyLimit: 4 * 1024,
    attachValidation: true,
    schema: {
      body: {
        type: 'object',
        properties: { secret: { type: 'string', minLength: 1, maxLength: MAX_SECRET_CHARS } },
        required: ['secret'],
        additionalProperties: false,
      },
      response: { 200: sessionSchema, '4xx': errorSchema },
    },
  }, async (request, reply) => {
    if (request.validationError) {
      throw new HttpError(400, 'invalid-body', `session: send {"secret": "..."} as JSON, the secret as text of 1 to ${MAX_SECRET_CHARS} characters, and nothing else`);
    }
    if (!app.auth.required) {
      throw new HttpError(409, 'no-secret', 'session: Lantern has no secret (LANTERN_SECRET is not set), so there is nothing to sign in to');
    }
    const checked = app.auth.check(request, request.body.secret);
    if (!checked.ok && checked.retryAfterMs !== null) return refuseTooMany(reply, checked.retryAfterMs);
    if (!checked.ok) throw new HttpError(401, 'wrong-secret', 'session: that is not Lantern\'s secret; it is the value of LANTERN_SECRET where Lantern runs');
    const { expiresAt } = app.auth.startSession(request, reply);
    return answer(true, expiresAt);
  });

  app.delete('/api/session', {
    config: { public: true },
    schema: { response: { 200: sessionSchema } },
  }, async (request, reply) => {
    app.auth.endSession(request, reply);
    return answer(false, null);
  });
}
