import type { DomainState, DomainsResponse } from '../api.ts';
import { stateLabel } from '../domain-state.ts';
import { formatCount } from '../format.ts';

/** The states the filter offers, busiest first (as sorting by state lists them). */
const STATES: DomainState[] = [
  'crawling',
  'waiting',
  'backoff',
  'failing',
  'robots-unreachable',
  'robots-blocked',
  'idle',
];

/** A choice of one state for the Domains table (all by default), each with how many hosts are in it. */
export function StateFilter({
  id,
  value,
  counts,
  onChange,
}: {
  id: string;
  value: DomainState | '';
  counts: DomainsResponse['states'] | undefined;
  onChange: (state: DomainState | '') => void;
}) {
  return (
    <>
      <label htmlFor={id}>Filter by state</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as DomainState | '')}>
        <option value="">all states</option>
        {STATES.map((state) => (
          <option key={state} value={state}>
            {stateLabel(state)}
            {counts !== undefined ? ` (${formatCount(counts[state] ?? 0)})` : ''}
          </option>
        ))}
      </select>
    </>
  );
}
