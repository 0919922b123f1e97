import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell.ts';

/** The Search view (`/`). */
export class SearchPage extends AppShell {
  readonly searchBox: Locator;
  readonly searchButton: Locator;
  readonly suggestions: Locator;
  readonly summary: Locator;
  readonly results: Locator;
  readonly previousButton: Locator;
  readonly nextButton: Locator;
  readonly error: Locator;

  constructor(page: Page) {
    super(page);
    this.searchBox = page.getByRole('combobox', { name: 'Search' });
    this.searchButton = page.getByRole('search').getByRole('button', { name: 'Search' });
    this.suggestions = page.getByRole('listbox', { name: 'Suggestions' });
    this.summary = this.main.getByRole('status').filter({ hasText: / results? in / });
    this.results = this.main.locator('ol.results > li');
    this.previousButton = page.getByRole('button', { name: 'Previous' });
    this.nextButton = page.getByRole('button', { name: 'Next' });
    this.error = this.main.getByRole('alert');
  }

  /** Opens the Search view, optionally with a query in the URL. */
  async open(query?: string): Promise<void> {
    await this.page.goto(query === undefined ? '/' : `/?q=${encodeURIComponent(query)}`);
  }

  /** Types a query into the search box and presses Enter. */
  async search(query: string): Promise<void> {
    await this.searchBox.fill(query);
    await this.searchBox.press('Enter');
  }

  /** The suggested text of a suggestion (without the address a title suggestion also shows). */
  suggestionText(option: Locator): Locator {
    return option.locator('.suggestion-text');
  }

  /** Title links of the results shown, in order. */
  resultLinks(): Locator {
    return this.results.getByRole('heading').getByRole('link');
  }
}
