import type { Locator, Page } from '@playwright/test';
import type { Scope } from '../../shared/enumerations.ts';
import { AppShell } from './app-shell.ts';

/** The Seeds view (`/seeds`). */
export class SeedsPage extends AppShell {
  readonly heading: Locator;
  readonly form: Locator;
  readonly urlInput: Locator;
  readonly depthInput: Locator;
  readonly scopeSelect: Locator;
  readonly addButton: Locator;
  /** The refusal shown next to the URL field. */
  readonly urlError: Locator;
  readonly formStatus: Locator;
  readonly bulkForm: Locator;
  readonly bulkInput: Locator;
  readonly addAllButton: Locator;
  readonly bulkResults: Locator;
  readonly table: Locator;
  /** What "Crawl again" said (or why it failed). */
  readonly crawlAgainStatus: Locator;
  /** What "Remove" said. */
  readonly removeStatus: Locator;
  /** What the Seeds list says when there is no seed. */
  readonly emptyList: Locator;
  /** The button that folds the add and import forms away (and opens them). */
  readonly addSeedsToggle: Locator;
  readonly search: Locator;

  constructor(page: Page) {
    super(page);
    this.heading = page.getByRole('heading', { name: 'Seeds', level: 1 });
    this.form = page.getByRole('form', { name: 'Add a seed' });
    this.urlInput = this.form.getByLabel('URL', { exact: true });
    this.depthInput = this.form.getByLabel('Depth', { exact: true });
    this.scopeSelect = this.form.getByLabel('Scope', { exact: true });
    this.addButton = this.form.getByRole('button', { name: 'Add seed' });
    this.urlError = this.form.getByRole('alert');
    this.formStatus = this.form.getByRole('status');
    this.bulkForm = page.getByRole('form', { name: 'Add several' });
    this.bulkInput = this.bulkForm.getByLabel('URLs, one per line');
    this.addAllButton = this.bulkForm.getByRole('button', { name: 'Add all' });
    this.bulkResults = this.bulkForm.getByRole('list', { name: 'Results of Add all' }).getByRole('listitem');
    this.table = page.getByRole('table', { name: 'Seeds and their crawl progress' });
    this.crawlAgainStatus = page.getByRole('status').filter({ hasText: /again/ });
    this.removeStatus = page.getByRole('status').filter({ hasText: /^Removed / });
    this.emptyList = page.getByText('No seeds yet. Add a URL above to start crawling.');
    this.addSeedsToggle = page.getByRole('button', { name: 'Add seeds' });
    this.search = page.getByRole('searchbox', { name: 'Search seeds' });
  }

  /** Opens the add and import forms if they are folded away (they are once there are seeds). */
  async openForms(): Promise<void> {
    // The toggle is shown once the first answer said whether there are seeds (with the form, if open).
    await this.addSeedsToggle.or(this.urlInput).first().waitFor();
    if (
      (await this.addSeedsToggle.count()) > 0 &&
      (await this.addSeedsToggle.getAttribute('aria-expanded')) === 'false'
    )
      await this.addSeedsToggle.click();
  }

  /** Opens the Seeds view directly. */
  async open(): Promise<void> {
    await this.page.goto('/seeds');
  }

  /**
   * Resolves once the view has asked for its seed list again (it asks 2 s after each answer), after this call,
   * and had the answer: a way to wait until the view has refreshed, decided by the request itself, not by a
   * guess at its timing. Anything the page sent before this call was sent before that request.
   */
  async nextRefresh(): Promise<void> {
    const asked = await this.page.waitForRequest(
      (request) => request.method() === 'GET' && new URL(request.url()).pathname === '/api/seeds',
    );
    const answer = await asked.response();
    if (answer === null) throw new Error(`seeds-page: the view's request for its seed list failed (${asked.url()})`);
  }

  /** Fills the form and presses "Add seed". */
  async addSeed(url: string, options: { depth?: number; scope?: Scope } = {}): Promise<void> {
    await this.openForms();
    await this.urlInput.fill(url);
    if (options.depth !== undefined) await this.depthInput.fill(String(options.depth));
    if (options.scope !== undefined) await this.scopeSelect.selectOption(options.scope);
    await this.addButton.click();
  }

  /** Pastes lines into "URLs, one per line" and presses "Add all". */
  async addSeveral(urls: string[]): Promise<void> {
    await this.openForms();
    await this.bulkInput.fill(urls.join('\n'));
    await this.addAllButton.click();
  }

  /** The "Crawl again" button of a seed's row. */
  crawlAgainButton(url: string): Locator {
    return this.row(url).getByRole('button', { name: `Crawl ${url} again` });
  }

  /** The "Remove" button of a seed's row (it asks before removing). */
  removeButton(url: string): Locator {
    return this.row(url).getByRole('button', { name: `Remove ${url}` });
  }

  /** The question a seed's row asks before removing it, with its "Remove" and "Keep" buttons. */
  removeQuestion(url: string): Locator {
    return this.row(url).getByRole('group', { name: `Remove ${url}?` });
  }

  /** The table row of a seed, found by its exact URL (the link beneath its title). */
  row(url: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('link', { name: url, exact: true }) });
  }

  /** A cell of a seed's row by column header name ('Depth', 'Fetched', ...). */
  async cell(url: string, column: string): Promise<Locator> {
    await this.table.getByRole('columnheader').first().waitFor(); // the list may still be loading
    const headers = await this.table.getByRole('columnheader').allTextContents();
    const index = headers.findIndex((text) => text.trim() === column);
    if (index < 0) throw new Error(`seeds-page: no column named ${column} (have ${headers.join(', ')})`);
    // The first column is the selection box (a cell), the second the seed (the row header).
    if (index === 1) return this.row(url).getByRole('rowheader');
    return this.row(url)
      .getByRole('cell')
      .nth(index === 0 ? 0 : index - 1);
  }
}
