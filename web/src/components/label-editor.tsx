import { useState } from 'react';
import type { FormEvent } from 'react';
import { setSeedLabels } from '../api.ts';
import type { Seed } from '../api.ts';
import { labelList } from '../label-input.ts';

/**
 * A seed's labels edited in place, opened from its row (one row at a time, so rows carry no input of
 * their own): each label with a button that removes it, a small form that adds one or more
 * (comma-separated), and "Done" (or Escape) to close it. The server folds them ("Dev Tools" becomes dev-tools).
 */
export function LabelEditor({ seed, onChanged, onDone }: { seed: Seed; onChanged: () => void; onDone: () => void }) {
  const labels = seed.labels;
  const [text, setText] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const save = async (next: string[]): Promise<void> => {
    setPending(true);
    setError(null);
    try {
      await setSeedLabels(seed.id, next);
      setText('');
      onChanged();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setPending(false);
    }
  };

  const add = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const more = labelList(text);
    if (more.length > 0) void save([...labels, ...more]);
  };

  return (
    <div
      className="label-editor"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onDone();
      }}
    >
      <ul className="labels" aria-label={`Labels of ${seed.url}`}>
        {labels.map((label) => (
          <li key={label} className="label-chip">
            {label}
            <button
              type="button"
              className="chip-remove"
              disabled={pending}
              aria-label={`Remove label ${label} from ${seed.url}`}
              onClick={() => void save(labels.filter((l) => l !== label))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form className="label-add" onSubmit={add} aria-label={`Add labels to ${seed.url}`}>
        <input
          type="text"
          autoFocus
          value={text}
          placeholder="label"
          aria-label={`New label for ${seed.url}`}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" className="button small" disabled={pending || text.trim() === ''}>
          Add<span className="visually-hidden"> label to {seed.url}</span>
        </button>
        <button type="button" className="button small" onClick={onDone}>
          Done
        </button>
      </form>
      {error !== null ? (
        <p role="alert" className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
