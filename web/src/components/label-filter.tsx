import { useCallback } from 'react';
import { listLabels } from '../api.ts';
import { usePoll } from '../use-poll.ts';

/** The Seeds view's label filter: every label in use, with its count; choosing one shows only its seeds. */
export function LabelFilter({ value, onChange }: { value: string; onChange: (label: string) => void }) {
  const labels = usePoll(
    useCallback((signal: AbortSignal) => listLabels(signal), []),
    5000,
  );
  const options = labels.data ?? [];
  return (
    <div className="field label-filter">
      <label htmlFor="seed-label-filter">Label</label>
      <select id="seed-label-filter" value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">All seeds</option>
        {value !== '' && !options.some((o) => o.label === value) ? <option value={value}>{value}</option> : null}
        {options.map((o) => (
          <option key={o.label} value={o.label}>
            {o.label} ({o.seeds})
          </option>
        ))}
      </select>
    </div>
  );
}
