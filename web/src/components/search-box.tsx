import { useEffect, useId, useRef, useState } from 'react';
import type { ChangeEvent, KeyboardEvent } from 'react';
import { isAbort, suggest } from '../api.ts';
import type { Suggestion } from '../api.ts';
import { displayUrl } from '../format.ts';

const SUGGEST_DELAY_MS = 120;

/** A query completion: what was typed as it is, what the completion adds in bold. */
function Completed({ text, typed }: { text: string; typed: string }) {
  if (typed === '' || !text.toLowerCase().startsWith(typed.toLowerCase())) return <>{text}</>;
  return (
    <>
      {text.slice(0, typed.length)}
      <strong>{text.slice(typed.length)}</strong>
    </>
  );
}

/** Props of the search box: a controlled value plus a submit callback. */
export interface SearchBoxProps {
  value: string;
  onChange: (value: string) => void;
  onSubmit: (query: string) => void;
  autoFocus?: boolean;
}

/**
 * The search form: an `<input type=search>` labelled "Search" with as-you-type suggestions from
 * `/api/suggest` in a listbox (debounced, stale requests aborted, the old list kept until the new one
 * arrives), driven by ArrowUp/ArrowDown, Enter and Escape. A query suggestion searches for its text; a
 * page suggestion (a title with its site) opens that page. The input is an ARIA 1.2 combobox
 * (aria-expanded, aria-activedescendant), so a screen reader announces the list and the option picked.
 */
export function SearchBox({ value, onChange, onSubmit, autoFocus = false }: SearchBoxProps) {
  const id = useId();
  const listId = `${id}-list`;
  const [items, setItems] = useState<Suggestion[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const inFlight = useRef<AbortController | null>(null);
  /** The text the shown suggestions were asked for (what their typed part is). */
  const typedFor = useRef('');

  const cancelPending = (): void => {
    clearTimeout(timer.current);
    inFlight.current?.abort();
    inFlight.current = null;
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: cancels what is pending when the box goes away, once
  useEffect(() => cancelPending, []);

  const requestSuggestions = (text: string): void => {
    clearTimeout(timer.current);
    // Leading spaces mean nothing; a trailing one says the last word is finished (the next one is completed).
    const prefix = text.replace(/^\s+/, '');
    if (prefix.trim() === '') {
      cancelPending();
      setOpen(false);
      setItems([]);
      setActive(-1);
      return;
    }
    timer.current = setTimeout(() => {
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      suggest(prefix, controller.signal)
        .then((response) => {
          if (controller.signal.aborted) return;
          inFlight.current = null;
          typedFor.current = prefix;
          setItems(response.suggestions);
          setActive(-1);
          setOpen(response.suggestions.length > 0);
        })
        .catch((error: unknown) => {
          if (isAbort(error) || controller.signal.aborted) return;
          inFlight.current = null; // suggestions are a nicety: a failure keeps the old list quietly
        });
    }, SUGGEST_DELAY_MS);
  };

  const close = (): void => {
    setOpen(false);
    setActive(-1);
  };

  const submit = (query: string): void => {
    cancelPending();
    close();
    onSubmit(query);
  };

  const choose = (item: Suggestion): void => {
    if (item.kind === 'title' && item.url !== undefined) {
      // A page suggestion opens that page (as its result's link would), not a search for its title.
      cancelPending();
      close();
      window.location.assign(item.url);
      return;
    }
    onChange(item.text);
    submit(item.text);
  };

  const handleChange = (event: ChangeEvent<HTMLInputElement>): void => {
    onChange(event.target.value);
    requestSuggestions(event.target.value);
  };

  const handleKeyDown = (event: KeyboardEvent<HTMLInputElement>): void => {
    const count = items.length;
    switch (event.key) {
      case 'ArrowDown':
        if (count === 0) return;
        event.preventDefault();
        if (!open) {
          setOpen(true);
          setActive(0);
        } else setActive((active + 1) % count);
        return;
      case 'ArrowUp':
        if (count === 0 || !open) return;
        event.preventDefault();
        setActive(active <= 0 ? count - 1 : active - 1);
        return;
      case 'Escape':
        if (open) {
          event.preventDefault(); // keep the text: the first Escape only closes the list
          cancelPending();
          close();
        }
        return;
      case 'Enter': {
        if (event.nativeEvent.isComposing) return;
        event.preventDefault();
        const item = open && active >= 0 ? items[active] : undefined;
        if (item !== undefined) choose(item);
        else submit(value);
        return;
      }
      default:
        return;
    }
  };

  const showList = open && items.length > 0;
  const activeId = showList && active >= 0 ? `${id}-opt-${active}` : undefined;

  return (
    <form
      role="search"
      className="search-form"
      onSubmit={(event) => {
        event.preventDefault();
        submit(value);
      }}
    >
      <label htmlFor={`${id}-input`} className="visually-hidden">
        Search
      </label>
      <div className="search-field">
        <input
          id={`${id}-input`}
          type="search"
          name="q"
          value={value}
          onChange={handleChange}
          onKeyDown={handleKeyDown}
          onBlur={close}
          autoFocus={autoFocus}
          data-autofocus={autoFocus ? true : undefined}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          enterKeyHint="search"
          maxLength={1000}
          placeholder="Search your crawled pages"
          role="combobox"
          aria-expanded={showList}
          aria-autocomplete="list"
          aria-controls={listId}
          aria-activedescendant={activeId}
        />
        <ul id={listId} role="listbox" aria-label="Suggestions" className="suggestions" hidden={!showList}>
          {items.map((item, index) => (
            <li
              key={`${item.kind}:${item.text}:${item.url ?? ''}`}
              id={`${id}-opt-${index}`}
              role="option"
              aria-selected={index === active}
              className={`suggestion ${item.kind === 'title' ? 'suggestion-page' : 'suggestion-query'}${index === active ? ' active' : ''}`}
              onMouseDown={(event) => event.preventDefault()}
              onMouseMove={() => setActive(index)}
              onClick={() => choose(item)}
            >
              <span className="suggestion-text">
                {item.kind === 'term' ? <Completed text={item.text} typed={typedFor.current} /> : item.text}
              </span>
              {item.kind === 'title' && item.url !== undefined ? (
                <span className="suggestion-url">
                  <span className="visually-hidden">page on </span>
                  {item.host ?? displayUrl(item.url)}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      </div>
      <button type="submit" className="button primary">
        Search
      </button>
    </form>
  );
}
