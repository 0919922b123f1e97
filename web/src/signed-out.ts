// One event for "the server says this browser is not signed in" (a 401 from any API call), so that the app
// shows the sign-in page wherever the session ended: expired, signed out in another tab, or Lantern restarted
// with a secret. Its own module so that api.ts and session.ts can both use it without importing each other.

/** The window event fired when the API answered 401 unauthenticated. */
export const SIGNED_OUT_EVENT = 'lantern:signed-out';

/** Tells the app that the server asked for a sign-in. */
export function announceSignedOut(): void {
  window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
}
