import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell.ts';

/** The columns of a host's row after its host name, in order. */
export const DOMAIN_COLUMNS = [
  'State',
  'Fetched',
  'Queued',
  'Errors',
  'Delay',
  'Last fetch',
  'Next fetch',
  'robots.txt',
  'Owner', // on PostgreSQL only: the crawler node that holds the host's group
] as const;

/** One of DOMAIN_COLUMNS. */
export type DomainColumn = (typeof DOMAIN_COLUMNS)[number];

/** The Domains view (`/domains`). */
export class DomainsPage extends AppShell {
  readonly heading: Locator;
  readonly stats: Locator;
  readonly filter: Locator;
  readonly stateFilter: Locator;
  /** The pager under the table (only when the hosts do not fit on one page). */
  readonly pager: Locator;
  readonly table: Locator;
  readonly liveStatus: Locator;

  constructor(page: Page) {
    super(page);
    this.heading = page.getByRole('heading', { name: 'Domains', level: 1 });
    this.stats = this.main.locator('dl.stats');
    this.filter = page.getByLabel('Filter hosts');
    this.stateFilter = page.getByLabel('Filter by state');
    this.pager = page.getByRole('navigation', { name: 'Pages of hosts' });
    this.table = page.getByRole('table', { name: /Hosts and their crawl state/ });
    this.liveStatus = this.main
      .getByRole('status')
      .filter({ hasText: /live|reconnecting|connecting/ })
      .first();
  }

  /** Opens the Domains view directly. */
  async open(): Promise<void> {
    await this.page.goto('/domains');
  }

  /** The value shown for a crawl-wide number ('Pages stored', 'Queued', 'Fetch rate', 'Workers alive', 'Crawler'). */
  stat(name: string): Locator {
    return this.stats
      .locator('div.stat')
      .filter({ has: this.page.getByText(name, { exact: true }) })
      .locator('dd');
  }

  /** The button in a host's row that expands its timeline. */
  hostButton(host: string): Locator {
    return this.table.getByRole('button', { name: host, exact: true });
  }

  /** On PostgreSQL, the crawler nodes' lines under the numbers (one `li` per node, `data-node` its id). */
  nodeLines(): Locator {
    return this.main.getByRole('list', { name: 'Crawler nodes' }).getByRole('listitem');
  }

  /** The header row of a politeness group whose hosts share one clock (`site.test`). */
  groupRow(name: string): Locator {
    return this.table.locator(`tr.group-row[data-group="${name}"]`);
  }

  /** A host's row. */
  row(host: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('button', { name: host, exact: true }) });
  }

  /** A cell of a host's row by its column name (the columns after the host, in the table's order). */
  cell(host: string, column: DomainColumn): Locator {
    return this.row(host).getByRole('cell').nth(DOMAIN_COLUMNS.indexOf(column));
  }

  /** The coloured state badge of a host ("crawling", "waiting", "idle", ...). */
  stateBadge(host: string): Locator {
    return this.cell(host, 'State').locator('.badge.state');
  }

  /** The column header button that sorts by a column. */
  sortButton(column: string): Locator {
    return this.table.getByRole('columnheader').getByRole('button', { name: column });
  }

  /** The expanded timeline of a host (an inline SVG with one mark per request). */
  timeline(host: string): Locator {
    return this.table.getByRole('img', {
      name: new RegExp(`requests to ${host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    });
  }
}
