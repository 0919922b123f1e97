import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import services, { type Services } from './plugins/services.ts';
import errorHandler, { answerFrameworkError } from './plugins/error-handler.ts';
import strictInput from './plugins/strict-input.ts';
import sameOrigin from './plugins/same-origin.ts';
import auth from './plugins/auth.ts';
import securityHeaders from './plugins/security-headers.ts';
import bidiGuard from './plugins/bidi-guard.ts';
import hostCheck from './plugins/host-check.ts';
import webStatic from './plugins/web-static.ts';
import { healthRoutes } from './routes/health.ts';
import { seedRoutes } from './routes/seeds.ts';
import { captureRoutes } from './routes/capture.ts';
import { crawlRoutes } from './routes/crawl.ts';
import { pageRoutes } from './routes/pages.ts';
import { opensearchRoutes } from './routes/opensearch.ts';
import { searchRoutes } from './routes/search.ts';
import { sessionRoutes } from './routes/session.ts';

/** Options for building the HTTP app; `logger: false` for tests. */
export interface AppOptions extends Services {
  logger?: boolean | object;
  webRoot?: string;
  /** The clock of sign-in sessions and their rate limit (Date.now by default; tests drive it). */
  now?: () => number;
  /** Called for every route as it is added (tests use it to check that each one is protected). */
  onRoute?: (route: RouteOptions) => void;
}

/** Builds Lantern's Fastify app around already-opened services (tests drive it with `app.inject`). */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: 64 * 1024,
    routerOptions: { maxParamLength: 300 },
    frameworkErrors: answerFrameworkError,
  });
  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  await app.register(services, opts);
  await app.register(securityHeaders); // first of the hooks, so that even an early refusal carries them
  await app.register(hostCheck); // then: only Lantern's own names are answered (DNS rebinding)
  await app.register(errorHandler);
  await app.register(strictInput); // before the routes: their schemas are compiled by it
  await app.register(bidiGuard); // every JSON answer: no bidirectional controls to disguise crawled text
  await app.register(sameOrigin);
  await app.register(auth, { now: opts.now }); // with LANTERN_SECRET: a session or the secret for every route not marked public
  await app.register(sessionRoutes);
  await app.register(healthRoutes);
  await app.register(seedRoutes, { now: opts.now });
  await app.register(captureRoutes);
  await app.register(crawlRoutes);
  await app.register(pageRoutes);
  await app.register(opensearchRoutes);
  await app.register(searchRoutes);
  await app.register(webStatic, { root: opts.webRoot });
  return app;
}
