import { useEffect, useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { addSeed, ApiError } from '../api.ts';
import type { Scope, Seed } from '../api.ts';
import { parseDepth } from '../seed-input.ts';
import { labelList } from '../label-input.ts';
import type { Prefill } from '../prefill.ts';

/** Depth and scope chosen in the seed form; the bulk form uses the same choice. */
export interface SeedOptions {
  depth: string;
  scope: Scope;
}

/** The scope choices, in the order shown: a Record, so a scope added to shared/enumerations.ts must be named here. */
const SCOPE_CHOICES: Record<Scope, string> = {
  path: 'Under this path',
  host: 'Same host',
  domain: 'Same domain',
  any: 'Any site',
};

/** Props of the single-seed form. */
export interface SeedFormProps {
  options: SeedOptions;
  onOptionsChange: (options: SeedOptions) => void;
  onAdded: (seed: Seed, created: boolean) => void;
  /**
   * A page to add, as the bookmarklet opens it (`/seeds?add=URL&title=T`), already cleaned (web/src/prefill.ts):
   * filled in, waiting for the person to check it and choose "Add seed".
   */
  prefill?: Prefill;
}

/**
 * The "Add a seed" form: URL, depth and scope. A refusal from the API is shown next to the URL field
 * (role=alert, linked with aria-describedby); on success the field clears and keeps focus for the next URL.
 *
 * Prefilled, the form opens with the focus on its note, which says what would be added: never on "Add seed"
 * nor on a field, where the next Enter would submit. Any page can open this address in a popup when the
 * person presses a key and so catch their next Enter (key-jacking); adding a seed takes a deliberate act,
 * a click or Tab to the button. The title is shown in `<bdi>`, so right-to-left text cannot reorder the note.
 */
export function SeedForm({ options, onOptionsChange, onAdded, prefill }: SeedFormProps) {
  const id = useId();
  const [url, setUrl] = useState(prefill?.url ?? '');
  const [labels, setLabels] = useState('');
  const title = prefill !== undefined && prefill.url === url ? prefill.title.trim() : '';
  const [urlError, setUrlError] = useState<string | null>(null);
  const [depthError, setDepthError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const urlRef = useRef<HTMLInputElement>(null);
  const depthRef = useRef<HTMLInputElement>(null);
  const noteRef = useRef<HTMLParagraphElement>(null);
  const prefilled = prefill !== undefined;
  const prefillUrl = prefill?.url;
  // A page to add (the bookmarklet's address, opened again in this tab): filled in, the note focused.
  // The form is not remounted for it, so what it said about the last add stays until then.
  useEffect(() => {
    if (prefillUrl === undefined) return;
    setUrl(prefillUrl);
    setMessage(null);
    noteRef.current?.focus();
  }, [prefillUrl]);

  const handleSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (pending) return;
    setMessage(null);
    const depth = parseDepth(options.depth);
    if (depth === null) {
      setDepthError('Depth must be a whole number from 0 to 10.');
      depthRef.current?.focus();
      return;
    }
    setDepthError(null);
    setPending(true);
    try {
      const { seed, created } = await addSeed({
        url: url.trim(),
        depth,
        scope: options.scope,
        labels: labelList(labels),
        ...(title !== '' ? { title } : {}),
      });
      setUrl('');
      setLabels('');
      setUrlError(null);
      setMessage(
        created
          ? `Added ${seed.url}. Crawling starts shortly.`
          : `${seed.url} was already a seed; it was updated and will be crawled again.`,
      );
      onAdded(seed, created);
      urlRef.current?.focus();
    } catch (error) {
      setUrlError(error instanceof ApiError || error instanceof Error ? error.message : String(error));
      urlRef.current?.focus();
    } finally {
      setPending(false);
    }
  };

  const urlDescribedBy = [`${id}-url-hint`, urlError !== null ? `${id}-url-error` : null].filter(Boolean).join(' ');

  return (
    <form
      className="seed-form card"
      onSubmit={(event) => void handleSubmit(event)}
      noValidate
      aria-labelledby={`${id}-title`}
    >
      <h2 id={`${id}-title`}>Add a seed</h2>
      {prefilled ? (
        // Focused when the form opens (tabIndex -1: not in the Tab order), so that Enter or Space adds nothing.
        <p className="notice info prefill-note" ref={noteRef} tabIndex={-1} data-autofocus>
          Add the page you were on
          {title !== '' ? (
            <>
              :{' '}
              <strong>
                <bdi>{title}</bdi>
              </strong>
            </>
          ) : null}
          ? Check it and press Add seed.
        </p>
      ) : null}
      <div className="field field-url">
        <label htmlFor={`${id}-url`}>URL</label>
        <input
          id={`${id}-url`}
          ref={urlRef}
          type="text"
          inputMode="url"
          name="url"
          autoComplete="url"
          autoCapitalize="off"
          spellCheck={false}
          placeholder="https://example.org/"
          value={url}
          onChange={(event) => {
            setUrl(event.target.value);
            if (urlError !== null) setUrlError(null);
          }}
          aria-invalid={urlError !== null}
          aria-describedby={urlDescribedBy}
        />
        <p id={`${id}-url-hint`} className="hint">
          An http or https address. Lantern follows its links politely, one request at a time per host.
        </p>
        {urlError !== null ? (
          <p id={`${id}-url-error`} role="alert" className="field-error">
            {urlError}
          </p>
        ) : null}
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-depth`}>Depth</label>
          <input
            id={`${id}-depth`}
            ref={depthRef}
            type="number"
            name="depth"
            min={0}
            max={10}
            step={1}
            inputMode="numeric"
            value={options.depth}
            onChange={(event) => {
              onOptionsChange({ ...options, depth: event.target.value });
              if (depthError !== null) setDepthError(null);
            }}
            aria-invalid={depthError !== null}
            aria-describedby={depthError !== null ? `${id}-depth-error` : `${id}-depth-hint`}
          />
          {depthError !== null ? (
            <p id={`${id}-depth-error`} role="alert" className="field-error">
              {depthError}
            </p>
          ) : (
            <p id={`${id}-depth-hint`} className="hint">
              Links deep, 0–10.
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor={`${id}-scope`}>Scope</label>
          <select
            id={`${id}-scope`}
            name="scope"
            value={options.scope}
            onChange={(event) => onOptionsChange({ ...options, scope: event.target.value as Scope })}
            aria-describedby={`${id}-scope-hint`}
          >
            {(Object.entries(SCOPE_CHOICES) as Array<[Scope, string]>).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <p id={`${id}-scope-hint`} className="hint">
            Where links may lead.
          </p>
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-labels`}>Labels</label>
        <input
          id={`${id}-labels`}
          type="text"
          name="labels"
          value={labels}
          placeholder="reading, rust"
          onChange={(event) => setLabels(event.target.value)}
          aria-describedby={`${id}-labels-hint`}
        />
        <p id={`${id}-labels-hint`} className="hint">
          Optional, comma-separated; search them with label:NAME.
        </p>
      </div>
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={pending}>
          Add seed
        </button>
        <p role="status" className="form-status">
          {message}
        </p>
      </div>
    </form>
  );
}
