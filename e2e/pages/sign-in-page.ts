import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell.ts';

/** The sign-in page, shown instead of every view when Lantern asks for its secret; and the header's "Sign out". */
export class SignInPage extends AppShell {
  readonly heading: Locator;
  readonly secretInput: Locator;
  readonly signInButton: Locator;
  /** Why the secret was refused. */
  readonly error: Locator;
  readonly signOutButton: Locator;

  constructor(page: Page) {
    super(page);
    this.heading = page.getByRole('heading', { name: 'Sign in to Lantern', level: 1 });
    this.secretInput = page.getByLabel('Secret', { exact: true });
    this.signInButton = page.getByRole('button', { name: 'Sign in' });
    this.error = this.main.getByRole('alert');
    this.signOutButton = page.getByRole('banner').getByRole('button', { name: 'Sign out' });
  }

  /** Types the secret and presses Enter, as a person (or a password manager) would. */
  async signIn(secret: string): Promise<void> {
    await this.secretInput.fill(secret);
    await this.secretInput.press('Enter');
  }
}
