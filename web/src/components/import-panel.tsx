import { useEffect, useId, useRef, useState } from 'react';
import { carriesFiles } from '../drop-guard.ts';
import type { DragEvent, FormEvent } from 'react';
import { importBookmarks } from '../api.ts';
import type { ImportResult, Scope } from '../api.ts';
import { plural } from '../format.ts';
import { labelList } from '../label-input.ts';

/** Props of the import panel. */
export interface ImportPanelProps {
  onImported: () => void;
  /** A file was taken (chosen, dropped on the box, or dropped anywhere else on the page). */
  onFileTaken?: () => void;
}

/** What the chosen file is. */
interface Chosen {
  name: string;
  text: string;
}

/**
 * "Import bookmarks": a file picker and a drop zone for a browser's bookmark export (or a CSV with a url
 * column, or one URL per line); depth and scope are chosen once for the whole import (default: just each
 * page). Its answer says how many seeds were added or merged, and lists every refused line with its reason.
 */
export function ImportPanel({ onImported, onFileTaken }: ImportPanelProps) {
  const id = useId();
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [depth, setDepth] = useState('0');
  const [scope, setScope] = useState<Scope>('host');
  const [labels, setLabels] = useState('');
  const [dragging, setDragging] = useState(false);
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<{ name: string; answer: ImportResult } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const zoneRef = useRef<HTMLDivElement>(null);

  const take = async (file: File | undefined): Promise<void> => {
    setResult(null);
    setError(null);
    if (file === undefined) return;
    setChosen({ name: file.name, text: await file.text() });
    onFileTaken?.();
  };
  const takeRef = useRef(take);
  takeRef.current = take;
  // A file dropped beside the box, anywhere on the page, is this panel's too (the page-level guard,
  // web/src/drop-guard.ts, keeps the browser from opening it); a drop on the box was handled there.
  useEffect(() => {
    const onWindowDrop = (event: globalThis.DragEvent): void => {
      if (!carriesFiles(event.dataTransfer?.types)) return;
      if (event.target instanceof Node && zoneRef.current?.contains(event.target)) return; // the box's own drop
      event.preventDefault();
      void takeRef.current(event.dataTransfer?.files[0]);
    };
    window.addEventListener('drop', onWindowDrop);
    return () => window.removeEventListener('drop', onWindowDrop);
  }, []);

  const onDrop = (event: DragEvent<HTMLDivElement>): void => {
    event.preventDefault();
    setDragging(false);
    void take(event.dataTransfer.files[0]);
  };

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (pending) return;
    if (chosen === null) {
      setError('Choose a bookmark file first (or drop one on the box).');
      fileRef.current?.focus();
      return;
    }
    const d = Number(depth);
    if (!Number.isInteger(d) || d < 0 || d > 10) {
      setError('Depth must be a whole number from 0 to 10.');
      return;
    }
    setPending(true);
    setError(null);
    try {
      const answer = await importBookmarks({ file: chosen.text, depth: d, scope, labels: labelList(labels) });
      setResult({ name: chosen.name, answer });
      setChosen(null);
      if (fileRef.current) fileRef.current.value = '';
      onImported();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setPending(false);
    }
  };

  return (
    <form
      className="import-panel card"
      onSubmit={(event) => void submit(event)}
      noValidate
      aria-labelledby={`${id}-title`}
    >
      <h2 id={`${id}-title`}>Import bookmarks</h2>
      <div
        ref={zoneRef}
        className={dragging ? 'drop-zone dragging' : 'drop-zone'}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <label htmlFor={`${id}-file`}>Bookmark file</label>
        <input
          id={`${id}-file`}
          ref={fileRef}
          type="file"
          name="file"
          accept=".html,.htm,.csv,.txt,text/html,text/csv,text/plain"
          onChange={(event) => void take(event.target.files?.[0])}
          aria-describedby={`${id}-hint`}
        />
        <p id={`${id}-hint`} className="hint">
          Your browser's bookmark export (Chrome, Edge, Firefox, Safari), a CSV with a url column, or one URL per line.
          Or drop it here (or anywhere on this page).
        </p>
        {chosen !== null ? <p className="chosen-file">Ready: {chosen.name}</p> : null}
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-depth`}>Import depth</label>
          <input
            id={`${id}-depth`}
            type="number"
            min={0}
            max={10}
            step={1}
            value={depth}
            onChange={(event) => setDepth(event.target.value)}
            aria-describedby={`${id}-depth-hint`}
          />
          <p id={`${id}-depth-hint`} className="hint">
            0: just the page.
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-scope`}>Import scope</label>
          <select id={`${id}-scope`} value={scope} onChange={(event) => setScope(event.target.value as Scope)}>
            <option value="path">Under this path</option>
            <option value="host">Same host</option>
            <option value="domain">Same domain</option>
            <option value="any">Any site</option>
          </select>
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-labels`}>Extra labels</label>
        <input
          id={`${id}-labels`}
          type="text"
          value={labels}
          placeholder="imported, reading"
          onChange={(event) => setLabels(event.target.value)}
          aria-describedby={`${id}-labels-hint`}
        />
        <p id={`${id}-labels-hint`} className="hint">
          Optional, comma-separated: added to every bookmark of this file, besides its folders.
        </p>
      </div>
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={pending}>
          {pending ? 'Importing…' : 'Import'}
        </button>
        {error !== null ? (
          <p role="alert" className="field-error">
            {error}
          </p>
        ) : null}
      </div>
      {result !== null ? <ImportReport name={result.name} answer={result.answer} /> : null}
    </form>
  );
}

/** What an import did, and every refused line with its reason. */
function ImportReport({ name, answer }: { name: string; answer: ImportResult }) {
  return (
    <div className="import-report">
      <p role="status">
        {name}: {plural(answer.created, 'new seed')}, {answer.merged} merged with seeds already there,{' '}
        {answer.refused.length} refused.
      </p>
      {answer.refused.length > 0 ? (
        <ul aria-label="Refused bookmarks" className="refused-list">
          {answer.refused.map((r) => (
            <li key={`${r.line}-${r.url}`}>
              Line {r.line}
              {r.title !== '' ? ` (${r.title})` : ''}: <code>{r.error}</code> {r.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
