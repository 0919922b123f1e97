/**
 * A self-signed HTTPS site on a loopback address, for the "TLS handshake fails" case: its certificate
 * is generated at start with the openssl command line (offline, a P-256 key, valid one day), so no
 * client that checks certificates can complete a handshake with it. It records every TCP connection
 * and every failed handshake, so a test can see from the server's side how often the crawler tried.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A running self-signed HTTPS site. */
export interface TlsSite {
  address: string;
  port: number;
  /** e.g. 'https://127.0.0.9:41234' */
  origin: string;
  /** e.g. '127.0.0.9:41234' */
  host: string;
  url(path: string): string;
  /** When each TCP connection arrived (performance clock, ms). */
  connections: number[];
  /** Handshake errors the server saw (the client refusing the certificate), in order. */
  handshakeErrors: string[];
  /** HTTP requests that got through (none expected). */
  requests: string[];
  close(): Promise<void>;
}

/** A self-signed certificate and key for `address` (PEM), made with openssl in a temporary directory. */
export function selfSignedCertificate(address: string): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=lantern-test',
        '-addext',
        `subjectAltName=IP:${address}`,
      ],
      { stdio: 'pipe' },
    );
    return {
      key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a self-signed HTTPS site on `address` (an ephemeral port) serving a small page at every path. */
export async function startTlsSite(address: string): Promise<TlsSite> {
  const { key, cert } = selfSignedCertificate(address);
  const connections: number[] = [];
  const handshakeErrors: string[] = [];
  const requests: string[] = [];
  const server = https.createServer({ key, cert }, (req, res) => {
    requests.push(req.url ?? '');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<title>Secret</title><p>behind a self-signed certificate</p>');
  });
  server.on('connection', () => connections.push(performance.timeOrigin + performance.now()));
  server.on('tlsClientError', (err: Error & { code?: string }) => handshakeErrors.push(err.code ?? err.message));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, address, resolve));
  const port = (server.address() as AddressInfo).port;
  const host = `${address}:${port}`;
  return {
    address,
    port,
    origin: `https://${host}`,
    host,
    url: (p) => new URL(p, `https://${host}`).href,
    connections,
    handshakeErrors,
    requests,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
