import type { ClusterStatus, CrawlNode } from '../api.ts';
import { formatCount, formatSpan, plural } from '../format.ts';

/** When a node was last heard from, in words: its heartbeat, how long it has been silent, or when it left. */
export function nodeWhen(node: CrawlNode): string {
  switch (node.state) {
    case 'alive':
      return `heartbeat ${formatSpan(node.heartbeatAgoMs)} ago`;
    case 'silent':
      return `silent since ${formatSpan(node.heartbeatAgoMs)} ago`;
    case 'left':
      return `left ${formatSpan(node.leftAgoMs ?? node.heartbeatAgoMs)} ago`;
  }
}

const SILENT_TITLE =
  'Its heartbeat stopped: the node stopped, was killed, or lost the database. Its leases expire, and other nodes take its groups.';

/**
 * The status header's count of crawler nodes on PostgreSQL (`/api/status` cluster): how many are alive, and how
 * many went silent; "unknown" while PostgreSQL does not answer (the storage notice says why).
 */
export function CrawlerNodesStat({ cluster }: { cluster: ClusterStatus }) {
  return (
    <div className="stat">
      <dt>Crawler nodes</dt>
      <dd>
        {cluster.answered ? (
          <>
            {formatCount(cluster.alive)}
            <span className="unit"> alive</span>
            {cluster.silent > 0 ? (
              <span className="unit silent-count" title={SILENT_TITLE}>
                , {formatCount(cluster.silent)} silent
              </span>
            ) : null}
          </>
        ) : (
          <span className="unit">unknown</span>
        )}
      </dd>
    </div>
  );
}

/**
 * Each crawler node on one line: its state, its id, what it says it is doing, the politeness groups it holds
 * and when it was last heard from; a node whose heartbeat stopped reads "silent since …". Node ids and their
 * words are text (bidi-isolated), never HTML.
 */
export function CrawlerNodeList({ cluster }: { cluster: ClusterStatus }) {
  if (!cluster.answered || cluster.nodes.length === 0) return null;
  const total = cluster.alive + cluster.silent + cluster.left;
  return (
    <div className="crawler-nodes">
      <ul className="node-list" aria-label="Crawler nodes">
        {cluster.nodes.map((node) => (
          <li key={node.node} className={`node node-${node.state}`} data-node={node.node}>
            <span className={`badge node-state node-state-${node.state}`}>
              <span className="badge-dot" aria-hidden="true" />
              {node.state}
            </span>{' '}
            <bdi className="node-id">{node.node}</bdi>
            {node.state === 'left' ? null : (
              <>
                {' · '}
                {node.state === 'silent' ? 'last said ' : null}
                <bdi className="node-doing">{node.doing}</bdi>
              </>
            )}
            {' · '}
            <span className="nowrap">{plural(node.groups, 'group')}</span>
            {' · '}
            <span className="nowrap" title={node.state === 'silent' ? SILENT_TITLE : undefined}>
              {nodeWhen(node)}
            </span>
          </li>
        ))}
      </ul>
      {cluster.nodes.length < total ? (
        <p className="muted">{formatCount(total - cluster.nodes.length)} more heard from in the last day, not listed</p>
      ) : null}
    </div>
  );
}
