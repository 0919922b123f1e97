// The sign-in session (docs/api.md, "Sign-in"): whether this Lantern asks for its secret, whether this
// browser is signed in, and signing in and out. The session itself is an HttpOnly cookie the page never sees.
import { useCallback, useEffect, useState } from 'react';
import { ApiError, forPeople, isAbort, type Session } from './api.ts';
import { SIGNED_OUT_EVENT } from './signed-out.ts';

async function call(method: 'GET' | 'POST' | 'DELETE', body?: unknown): Promise<Session> {
  let response: Response;
  try {
    response = await fetch('/api/session', {
      method,
      headers:
        body === undefined
          ? { accept: 'application/json' }
          : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError('network', 'The server cannot be reached.', 0);
  }
  const answer = (await response.json().catch(() => null)) as (Session & { error?: string; message?: string }) | null;
  if (!response.ok || answer === null) {
    const message =
      typeof answer?.message === 'string' ? forPeople(answer.message) : `The server answered ${response.status}`;
    throw new ApiError(
      typeof answer?.error === 'string' ? answer.error : `http-${response.status}`,
      message,
      response.status,
    );
  }
  return answer;
}

/** Asks whether a sign-in is needed and whether this browser has one. */
export function getSession(): Promise<Session> {
  return call('GET');
}

/** Signs in with the secret; an ApiError says why not (wrong secret, too many tries). */
export function signIn(secret: string): Promise<Session> {
  return call('POST', { secret });
}

/** Signs out: the server ends the session, so its cookie is worthless even if copied. */
export function signOut(): Promise<Session> {
  return call('DELETE');
}

/** The session as the app knows it: null while it asks the first time. */
export interface SessionState {
  info: Session | null;
  /** Replaces what the app knows (after signing in or out). */
  set(info: Session): void;
}

/**
 * Asks the server once at start, and switches to "signed out" whenever an API call answers 401. If
 * the server cannot be reached, the app is shown as without a secret: its views say the server is down.
 */
export function useSession(): SessionState {
  const [info, setInfo] = useState<Session | null>(null);
  useEffect(() => {
    let live = true;
    getSession().then(
      (answer) => live && setInfo(answer),
      () => live && setInfo({ required: false, signedIn: false, expiresAt: null }),
    );
    const onSignedOut = (): void => setInfo({ required: true, signedIn: false, expiresAt: null });
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => {
      live = false;
      window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
    };
  }, []);
  const set = useCallback((next: Session) => setInfo(next), []);
  return { info, set };
}
