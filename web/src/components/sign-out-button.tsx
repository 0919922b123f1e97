import { useState } from 'react';

/**
 * The header's "Sign out" button (shown only when this Lantern asks for its secret): the server ends the
 * session, and the app goes back to the sign-in page. A failure (server unreachable) is said beside it.
 */
export function SignOutButton({ onSignOut }: { onSignOut: () => Promise<void> }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="sign-out">
      {error !== null ? (
        <span role="alert" className="field-error">
          {error}
        </span>
      ) : null}
      <button
        type="button"
        className="button"
        disabled={pending}
        onClick={() => {
          setPending(true);
          setError(null);
          onSignOut().catch((failure: unknown) => {
            setError(failure instanceof Error ? failure.message : String(failure));
            setPending(false);
          });
        }}
      >
        Sign out
      </button>
    </div>
  );
}
