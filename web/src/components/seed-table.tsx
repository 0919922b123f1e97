import type { Seed } from '../api.ts';
import { formatAgo, formatCount, formatDateTime } from '../format.ts';

const SCOPE_TEXT: Record<Seed['scope'], string> = { host: 'host', domain: 'domain', any: 'any' };

/** The seed list as a table (URL, depth, scope, found, fetched, queued, failed, added), scrolling sideways when narrow. */
export function SeedTable({ seeds, now }: { seeds: Seed[]; now: number }) {
  return (
    <div className="table-wrap" role="region" aria-labelledby="seed-table-caption" tabIndex={0}>
      <table className="data-table seed-table">
        <caption id="seed-table-caption" className="visually-hidden">
          Seeds and their crawl progress
        </caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col" className="num">Depth</th>
            <th scope="col">Scope</th>
            <th scope="col" className="num">Found</th>
            <th scope="col" className="num">Fetched</th>
            <th scope="col" className="num">Queued</th>
            <th scope="col" className="num">Failed</th>
            <th scope="col">Added</th>
          </tr>
        </thead>
        <tbody>
          {seeds.map((seed) => (
            <tr key={seed.id}>
              <th scope="row" className="url-cell">
                <a href={seed.url} rel="noopener noreferrer">
                  {seed.url}
                </a>
              </th>
              <td className="num">{seed.depth}</td>
              <td>{SCOPE_TEXT[seed.scope] ?? seed.scope}</td>
              <td className="num">{formatCount(seed.found)}</td>
              <td className="num">{formatCount(seed.fetched)}</td>
              <td className="num">{formatCount(seed.queued)}</td>
              <td className={seed.failed > 0 ? 'num warn-text' : 'num'}>{formatCount(seed.failed)}</td>
              <td className="nowrap">
                <time dateTime={seed.createdAt} title={formatDateTime(seed.createdAt)}>
                  {formatAgo(seed.createdAt, now)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
