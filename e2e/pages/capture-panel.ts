import type { Locator, Page } from '@playwright/test';

/** The capture parts of the Seeds view: the import panel, the label filter, label editors, the bookmarklet. */
export class CapturePanel {
  readonly importForm: Locator;
  readonly fileInput: Locator;
  readonly importButton: Locator;
  readonly importStatus: Locator;
  readonly refused: Locator;
  readonly labelFilter: Locator;
  readonly bookmarklet: Locator;
  /** The note the add form shows when the bookmarklet opened it. */
  readonly prefillNote: Locator;
  /** The page's title in that note, isolated in a `<bdi>` (no role: found by its element). */
  readonly prefillTitle: Locator;

  constructor(readonly page: Page) {
    this.importForm = page.getByRole('form', { name: 'Import bookmarks' });
    this.fileInput = this.importForm.getByLabel('Bookmark file');
    this.importButton = this.importForm.getByRole('button', { name: 'Import' });
    this.importStatus = this.importForm.getByRole('status');
    this.refused = this.importForm.getByRole('list', { name: 'Refused bookmarks' }).getByRole('listitem');
    this.labelFilter = page.getByLabel('Label', { exact: true });
    this.bookmarklet = page.getByRole('link', { name: 'Add to Lantern' });
    this.prefillNote = page.getByRole('form', { name: 'Add a seed' }).getByText(/Add the page you were on/);
    this.prefillTitle = this.prefillNote.locator('bdi');
  }

  /** Chooses a file in the picker and presses Import. */
  async importFile(path: string): Promise<void> {
    await this.fileInput.setInputFiles(path);
    await this.importForm.getByText(/^Ready: /).waitFor();
    await this.importButton.click();
  }

  /** The labels shown in a seed's row. */
  labels(url: string): Locator {
    return this.page.getByRole('list', { name: `Labels of ${url}` }).getByRole('listitem');
  }
}
