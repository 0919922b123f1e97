import fp from 'fastify-plugin';
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, isSessionToken, newSessionToken, tokenDigest } from '../auth/secret.ts';
import { SignInGuard, type SecretCheck } from '../auth/sign-in-guard.ts';
import { requestScheme } from '../request-scheme.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'lantern_session';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route holds nothing private and answers without a sign-in (health, the sign-in itself, the web app's files). */
    public?: boolean;
  }
  interface FastifyInstance {
    auth: Auth;
  }
}

/** Sign-in and sessions, for the session routes (server/routes/session.ts). */
export interface Auth {
  /** Whether a secret is set (LANTERN_SECRET): then every route but the public ones needs a session or the secret. */
  readonly required: boolean;
  /** The live session of the request's cookie, if any. */
  session(request: FastifyRequest): Promise<{ expiresAt: number } | null>;
  /** Checks a secret a client gave, counting wrong ones against its budget. */
  check(request: FastifyRequest, given: string): SecretCheck;
  /** Starts a session and sets its cookie; returns when it ends. */
  startSession(request: FastifyRequest, reply: FastifyReply): Promise<{ expiresAt: number }>;
  /** Ends the request's session on the server (a copy of its cookie is worthless from now on) and clears the cookie. */
  endSession(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/** `/api` and what is under it: the API, whose unknown paths are not the web app's. */
function isApiPath(url: string): boolean {
  const path = url.split('?')[0];
  return path === '/api' || path.startsWith('/api/');
}

/**
 * With LANTERN_SECRET set, every request needs a sign-in session (an HttpOnly, SameSite=Strict cookie
 * whose record lives in the database) or `Authorization: Bearer <secret>`, except routes marked
 * `config: { public: true }` and the web app's page for paths it routes itself: they hold no data and
 * are needed to show the sign-in page. Default-deny: a route added later is protected unless it says
 * otherwise. Unauthenticated requests get `401 unauthenticated`. Without a secret it does nothing
 * (Lantern bound to loopback only: shared/config.ts refuses to start otherwise).
 */
export default fp(
  async function auth(app: FastifyInstance, opts: { now?: () => number }) {
    const now = opts.now ?? Date.now;
    const secret = app.config.secret;
    const lifetimeMs = app.config.sessionLifetimeMs;
    const sessions = app.sessions;
    const guard = secret === null ? null : new SignInGuard(secret);
    await app.register(fastifyCookie);

    const cookieToken = (request: FastifyRequest): string | null => {
      const value = request.cookies[SESSION_COOKIE];
      return value !== undefined && isSessionToken(value) ? value : null;
    };
    const cookieOptions = (request: FastifyRequest) =>
      ({ path: '/', httpOnly: true, sameSite: 'strict', secure: requestScheme(request) === 'https' }) as const;

    const authApi: Auth = {
      required: secret !== null,
      async session(request) {
        const token = cookieToken(request);
        const row = token === null ? undefined : await sessions.liveSession(tokenDigest(token), now());
        return row === undefined ? null : { expiresAt: row.expiresAt };
      },
      check(request, given) {
        return guard === null ? { ok: false, retryAfterMs: null } : guard.check(request.ip, given, now());
      },
      async startSession(request, reply) {
        const token = newSessionToken();
        const at = now();
        const expiresAt = at + lifetimeMs;
        await sessions.startSession(tokenDigest(token), at, expiresAt);
        reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions(request), maxAge: Math.floor(lifetimeMs / 1000) });
        return { expiresAt };
      },
      async endSession(request, reply) {
        const token = cookieToken(request);
        if (token !== null) await sessions.endSession(tokenDigest(token));
        reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
      },
    };
    app.decorate('auth', authApi);
    if (guard === null) return;

    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.public === true) return;
      // The web app's page for a path it routes itself (/seeds, /stored?url=...): the same page as `/`.
      if (request.is404 && (request.method === 'GET' || request.method === 'HEAD') && !isApiPath(request.url)) return;
      const bearer = bearerToken(request.headers.authorization);
      if (bearer !== null) {
        const checked = authApi.check(request, bearer);
        if (checked.ok) return;
        if (checked.retryAfterMs !== null) return refuseTooMany(reply, checked.retryAfterMs);
        return reply.code(401).header('www-authenticate', 'Bearer realm="Lantern"').send({
          error: 'wrong-secret',
          message: "auth: the Authorization: Bearer token is not Lantern's secret (LANTERN_SECRET)",
        });
      }
      if ((await authApi.session(request)) !== null) return;
      return reply.code(401).header('www-authenticate', 'Bearer realm="Lantern"').send({
        error: 'unauthenticated',
        message:
          'auth: sign in first: open Lantern in a browser and enter its secret, or send Authorization: Bearer <LANTERN_SECRET>',
      });
    });
  },
  { name: 'auth', dependencies: ['services'] },
);

/** The one answer to a client out of guesses: 429 with Retry-After in whole seconds. */
export function refuseTooMany(reply: FastifyReply, retryAfterMs: number): FastifyReply {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return reply
    .code(429)
    .header('retry-after', String(seconds))
    .send({
      error: 'rate-limited',
      message: `auth: too many wrong secrets from this address; try again in ${seconds} s`,
    });
}
