/**
 * The send limit of a crawler node's request (issue 29, FetchJob.sendBy): a request is written to its socket only
 * up to the moment its group's lease allows, on the machine's monotonic clock. The primary checks the start rule
 * when it hands a job out (crawler/cluster/lease-rules.ts mayStart), but the request is written by a worker later:
 * after the job crossed the pipe, the connection was made and the name looked up. Were the node paused in between
 * (SIGSTOP, a VM frozen, a machine swapping) for longer than its lease, another node may hold the group by the time
 * the worker goes on, and the request would double the group's rate. So the worker judges the limit twice: before
 * it asks for a connection, and again by an undici interceptor at the last moment before undici writes the
 * request's first byte (its `onRequestStart`, called as the request is written to a connected socket). Past the
 * limit the request is aborted unwritten and the job is reported `unsent`.
 */
import type { Dispatcher } from 'undici';
import { machineNow } from '../common/machine-clock.ts';

/** The request was not sent: its send limit had passed (see the module comment). Not a failure of the site. */
export class RequestNotSent extends Error {
  override readonly name = 'RequestNotSent';
}

/** Throws RequestNotSent if `now` (machine clock) is past `sendBy`; says by how much and what it means. */
export function checkSendLimit(url: string, sendBy: number | undefined, now: number): void {
  if (sendBy === undefined || now <= sendBy) return;
  throw new RequestNotSent(
    `fetcher: ${url} not sent: its send limit passed ${Math.round(now - sendBy)} ms before the worker could write it (the node was paused or slow for longer than its lease allows); the job goes back to the queue`,
  );
}

/**
 * An undici interceptor that aborts a request, unwritten, when the moment it is about to be written is past
 * `sendBy` on the machine's monotonic clock.
 */
export function sendLimit(url: string, sendBy: number): Dispatcher.DispatcherComposeInterceptor {
  // `compose` hands an interceptor the controller-style handler; onRequestStart runs synchronously in the client
  // just before the request is written to its socket, so an abort there leaves the request unwritten.
  return (dispatch) => (opts, handler) =>
    dispatch(opts, {
      onRequestStart(controller, context) {
        try {
          checkSendLimit(url, sendBy, machineNow());
        } catch (err) {
          controller.abort(err as Error); // undici destroys the socket and fails the request with this error
          return;
        }
        handler.onRequestStart?.(controller, context);
      },
      onRequestUpgrade: (c, status, headers, socket) => handler.onRequestUpgrade?.(c, status, headers, socket),
      onResponseStart: (c, status, headers, message) => handler.onResponseStart?.(c, status, headers, message),
      onResponseData: (c, chunk) => handler.onResponseData?.(c, chunk),
      onResponseEnd: (c, trailers) => handler.onResponseEnd?.(c, trailers),
      onResponseError: (c, error) => handler.onResponseError?.(c, error),
    });
}
