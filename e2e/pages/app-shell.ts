import type { Locator, Page } from '@playwright/test';

/** The three views in the main navigation. */
export type ViewName = 'Search' | 'Seeds' | 'Domains';

/** The parts of the app around every view: the main navigation and the main landmark. */
export class AppShell {
  readonly nav: Locator;
  readonly main: Locator;

  constructor(readonly page: Page) {
    this.nav = page.getByRole('navigation', { name: 'Main' });
    this.main = page.getByRole('main');
  }

  /** The navigation link of a view. */
  navLink(view: ViewName): Locator {
    return this.nav.getByRole('link', { name: view, exact: true });
  }

  /** Goes to a view by clicking its link in the navigation bar. */
  async navigateTo(view: ViewName): Promise<void> {
    await this.navLink(view).click();
  }
}
