import type { DomainState } from '../api.ts';

/** A host's crawl state as a coloured badge; the words come from the API's `stateText`, the colour from `state`. */
export function StateBadge({ state, text }: { state: DomainState; text: string }) {
  return (
    <span className={`badge state state-${state}`}>
      <span className="badge-dot" aria-hidden="true" />
      {text}
    </span>
  );
}
