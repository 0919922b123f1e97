import { useEffect, useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { signIn } from '../session.ts';
import type { Session } from '../api.ts';
import { useTitle } from '../use-title.ts';

/**
 * Shown instead of every view when this Lantern asks for its secret (LANTERN_SECRET) and the browser is
 * not signed in. A wrong secret, or too many of them, is said next to the field (role=alert); on success
 * the view the address names is shown.
 */
export function SignInView({ onSignedIn }: { onSignedIn: (info: Session) => void }) {
  useTitle('Sign in');
  const id = useId();
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    inputRef.current?.focus();
  }, []);

  const handleSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (pending) return;
    if (secret === '') {
      setError('Enter the secret.');
      inputRef.current?.focus();
      return;
    }
    setPending(true);
    try {
      const info = await signIn(secret);
      setSecret('');
      onSignedIn(info);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      inputRef.current?.select();
    } finally {
      setPending(false);
    }
  };

  return (
    <section className="view sign-in" aria-labelledby={`${id}-heading`}>
      <h1 id={`${id}-heading`} tabIndex={-1}>
        Sign in to Lantern
      </h1>
      <p className="lede">This Lantern asks for its secret: the value of LANTERN_SECRET where it runs.</p>
      <form className="card sign-in-form" onSubmit={(event) => void handleSubmit(event)} noValidate>
        <div className="field">
          <label htmlFor={`${id}-secret`}>Secret</label>
          <input
            id={`${id}-secret`}
            ref={inputRef}
            type="password"
            name="secret"
            autoComplete="current-password"
            value={secret}
            onChange={(event) => {
              setSecret(event.target.value);
              if (error !== null) setError(null);
            }}
            aria-invalid={error !== null}
            aria-describedby={error !== null ? `${id}-error` : undefined}
          />
          {error !== null ? (
            <p id={`${id}-error`} role="alert" className="field-error">
              {error}
            </p>
          ) : null}
        </div>
        <div className="form-actions">
          <button className="button primary" type="submit" disabled={pending}>
            {pending ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
    </section>
  );
}
