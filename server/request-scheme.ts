import type { FastifyRequest } from 'fastify';

/**
 * The scheme the client used to reach Lantern: https when the connection itself is TLS, or when a
 * TLS-terminating reverse proxy says so in `X-Forwarded-Proto` (its first value). The header is
 * believed from anyone because it only shapes the answer to the client that sent it: the `Secure`
 * flag of its own cookie (a lie keeps the liar's cookie off plain http) and the addresses in its own
 * OpenSearch description. A browser never sends it on its own.
 */
export function requestScheme(request: FastifyRequest): 'http' | 'https' {
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return request.protocol === 'https' || first === 'https' ? 'https' : 'http';
}
