import type { DomainState } from '../api.ts';
import { stateDetail, stateLabel } from '../domain-state.ts';

/**
 * A host's crawl state: the state in a word on a coloured badge (colour from `state`), and below it the
 * API's `stateText` sentence minus what the badge already says ("0.4 s for its turn", "until 14:03:05 UTC").
 */
export function StateBadge({ state, text }: { state: DomainState; text: string }) {
  const detail = stateDetail(state, text);
  return (
    <>
      <span className={`badge state state-${state}`}>
        <span className="badge-dot" aria-hidden="true" />
        {stateLabel(state)}
      </span>
      {detail !== null ? <div className="state-detail">{detail}</div> : null}
    </>
  );
}
