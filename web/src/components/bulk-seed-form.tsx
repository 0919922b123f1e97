import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { addSeed } from '../api.ts';
import type { Scope } from '../api.ts';
import { seedLines } from '../seed-input.ts';

type LineOutcome =
  | { line: string; state: 'pending' }
  | { line: string; state: 'accepted'; url: string; created: boolean }
  | { line: string; state: 'refused'; reason: string };

/** Props of the "Add several" form. */
export interface BulkSeedFormProps {
  depth: number | null;
  scope: Scope;
  onAdded: () => void;
}

/**
 * "Add several": one URL per line, each POSTed on its own (in order) and reported as accepted or refused
 * with the API's reason. Refused lines stay in the box so they can be fixed and tried again.
 */
export function BulkSeedForm({ depth, scope, onAdded }: BulkSeedFormProps) {
  const id = useId();
  const [text, setText] = useState('');
  const [outcomes, setOutcomes] = useState<LineOutcome[]>([]);
  const [pending, setPending] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);

  const handleSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (pending) return;
    const lines = seedLines(text);
    if (lines.length === 0) {
      setFormError('Paste at least one URL, one per line.');
      return;
    }
    if (depth === null) {
      setFormError('Choose a Depth from 0 to 10 in Add a seed first.');
      return;
    }
    setFormError(null);
    setPending(true);
    const results: LineOutcome[] = lines.map((line) => ({ line, state: 'pending' }));
    setOutcomes([...results]);
    for (const [index, line] of lines.entries()) {
      try {
        const { seed, created } = await addSeed({ url: line, depth, scope });
        results[index] = { line, state: 'accepted', url: seed.url, created };
      } catch (error) {
        results[index] = { line, state: 'refused', reason: error instanceof Error ? error.message : String(error) };
      }
      setOutcomes([...results]);
    }
    setText(
      results
        .filter((r) => r.state === 'refused')
        .map((r) => r.line)
        .join('\n'),
    );
    setPending(false);
    onAdded();
  };

  const accepted = outcomes.filter((o) => o.state === 'accepted').length;
  const refused = outcomes.filter((o) => o.state === 'refused').length;

  return (
    <form
      className="bulk-form card"
      onSubmit={(event) => void handleSubmit(event)}
      noValidate
      aria-labelledby={`${id}-title`}
    >
      <h2 id={`${id}-title`}>Add several</h2>
      <div className="field">
        <label htmlFor={`${id}-urls`}>URLs, one per line</label>
        <textarea
          id={`${id}-urls`}
          name="urls"
          rows={4}
          spellCheck={false}
          autoCapitalize="off"
          value={text}
          onChange={(event) => setText(event.target.value)}
          aria-describedby={formError !== null ? `${id}-error` : `${id}-hint`}
          aria-invalid={formError !== null}
        />
        {formError !== null ? (
          <p id={`${id}-error`} role="alert" className="field-error">
            {formError}
          </p>
        ) : (
          <p id={`${id}-hint`} className="hint">
            Each line uses the Depth and Scope chosen in Add a seed.
          </p>
        )}
      </div>
      <div className="form-actions">
        <button type="submit" className="button" disabled={pending}>
          Add all
        </button>
        <p role="status" className="form-status">
          {outcomes.length > 0 && !pending ? `${accepted} accepted, ${refused} refused.` : pending ? 'Adding…' : null}
        </p>
      </div>
      {outcomes.length > 0 ? (
        <ul className="bulk-results" aria-label="Results of Add all">
          {outcomes.map((outcome) => (
            <li key={outcome.line} className={`bulk-result ${outcome.state}`}>
              {outcome.state === 'pending' ? (
                <>
                  <span className="badge neutral">Waiting</span> <span className="mono">{outcome.line}</span>
                </>
              ) : outcome.state === 'accepted' ? (
                <>
                  <span className="badge ok">{outcome.created ? 'Accepted' : 'Updated'}</span>{' '}
                  <span className="mono">{outcome.url}</span>
                </>
              ) : (
                <>
                  <span className="badge bad">Refused</span> <span className="mono">{outcome.line}</span>
                  <span className="bulk-reason">{outcome.reason}</span>
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </form>
  );
}
