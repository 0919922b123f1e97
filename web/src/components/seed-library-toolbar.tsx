import type { SeedListQuery } from '../api.ts';
import { LabelFilter } from './label-filter.tsx';

/** The state filter's choices, as the server names them (GET /api/seeds `state`). */
const STATES: Array<[NonNullable<SeedListQuery['state']> | '', string]> = [
  ['', 'Any state'],
  ['crawling', 'Crawling'],
  ['done', 'Done'],
  ['failed', 'Failed'],
  ['removed', 'Removed'],
];
const SORTS: Array<[NonNullable<SeedListQuery['sort']>, string]> = [
  ['newest', 'Newest first'],
  ['oldest', 'Oldest first'],
  ['title', 'Title'],
  ['url', 'URL'],
];

/** What the toolbar chooses. */
export interface SeedLibraryChoice {
  query: string;
  label: string;
  state: NonNullable<SeedListQuery['state']> | '';
  sort: NonNullable<SeedListQuery['sort']>;
}

/**
 * The Seeds library's tools: search within seeds (title, URL, label), and filters by label and by state,
 * and the order. Every change is asked of the server at once (the list is one page of it).
 */
export function SeedLibraryToolbar({
  choice,
  onChange,
}: {
  choice: SeedLibraryChoice;
  onChange: (next: Partial<SeedLibraryChoice>) => void;
}) {
  return (
    <div className="seed-toolbar" role="search" aria-label="Seeds">
      <div className="field seed-search">
        <label htmlFor="seed-search">Search seeds</label>
        <input
          id="seed-search"
          type="search"
          placeholder="title, URL or label"
          value={choice.query}
          autoComplete="off"
          onChange={(event) => onChange({ query: event.target.value })}
        />
      </div>
      <LabelFilter value={choice.label} onChange={(label) => onChange({ label })} />
      <div className="field">
        <label htmlFor="seed-state-filter">State</label>
        <select
          id="seed-state-filter"
          value={choice.state}
          onChange={(event) => onChange({ state: event.target.value as SeedLibraryChoice['state'] })}
        >
          {STATES.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="seed-sort">Sort by</label>
        <select
          id="seed-sort"
          value={choice.sort}
          onChange={(event) => onChange({ sort: event.target.value as SeedLibraryChoice['sort'] })}
        >
          {SORTS.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}
