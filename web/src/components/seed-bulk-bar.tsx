import { useId, useState } from 'react';
import type { BulkSeedRequest } from '../api.ts';
import { plural } from '../format.ts';
import { labelList } from '../label-input.ts';

type Action = BulkSeedRequest['action'];

/** What each action's confirmation asks and its button says, for `n` seeds. */
const QUESTION: Record<Action, (n: string) => string> = {
  remove: (n) => `Remove ${n} and their pages from search?`,
  crawl: (n) => `Crawl ${n} again? Every page they found is checked for changes.`,
  label: (n) => `Add these labels to ${n}?`,
  unlabel: (n) => `Take these labels off ${n}?`,
};
const VERB: Record<Action, string> = {
  remove: 'Remove',
  crawl: 'Crawl again',
  label: 'Add label',
  unlabel: 'Remove label',
};

/**
 * What to do with the seeds selected in the table, in one request: remove them, crawl them again, add
 * or take off labels. Each asks first, with the count ("Remove 3 seeds and their pages from search?");
 * the labels to add or take off are typed in the question.
 */
export function SeedBulkBar({
  count,
  pending,
  onApply,
  onClear,
}: {
  count: number;
  pending: boolean;
  onApply: (action: Action, labels: string[]) => void;
  onClear: () => void;
}) {
  const id = useId();
  const [asking, setAsking] = useState<Action | null>(null);
  const [labels, setLabels] = useState('');
  const seeds = plural(count, 'seed');
  const needsLabels = asking === 'label' || asking === 'unlabel';
  return (
    <section className="bulk-bar" aria-label="Selected seeds">
      <p className="bulk-count">
        <strong>{seeds}</strong> selected
      </p>
      {asking === null ? (
        <div className="bulk-actions">
          {(['crawl', 'label', 'unlabel', 'remove'] as const).map((action) => (
            <button
              key={action}
              type="button"
              className={action === 'remove' ? 'button small danger-outline' : 'button small'}
              disabled={pending}
              onClick={() => {
                setLabels('');
                setAsking(action);
              }}
            >
              {VERB[action]}…
            </button>
          ))}
          <button type="button" className="button small link-like" onClick={onClear}>
            Clear selection
          </button>
        </div>
      ) : (
        <form
          className="bulk-confirm"
          aria-labelledby={`${id}-question`}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setAsking(null);
          }}
          onSubmit={(event) => {
            event.preventDefault();
            const list = labelList(labels);
            if (needsLabels && list.length === 0) return;
            setAsking(null);
            onApply(asking, list);
          }}
        >
          <span id={`${id}-question`} className="confirm-text">
            {QUESTION[asking](seeds)}
          </span>
          {needsLabels ? (
            <input
              type="text"
              aria-label={asking === 'label' ? 'Labels to add' : 'Labels to take off'}
              placeholder="reading, rust"
              autoFocus
              value={labels}
              onChange={(event) => setLabels(event.target.value)}
            />
          ) : null}
          <button
            type="submit"
            className={asking === 'remove' ? 'button small danger' : 'button small primary'}
            disabled={pending || (needsLabels && labelList(labels).length === 0)}
            autoFocus={!needsLabels}
          >
            {VERB[asking]} ({count})
          </button>
          <button type="button" className="button small" onClick={() => setAsking(null)}>
            Cancel
          </button>
        </form>
      )}
    </section>
  );
}
