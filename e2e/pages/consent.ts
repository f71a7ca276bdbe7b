import { expect, type Locator, type Page } from '@playwright/test';

/** The reference service's sandbox consent page (/sandbox/oauth/consent), which an authorizationUrl leads to. */
export class ConsentPage {
  readonly heading: Locator;
  readonly allow: Locator;
  readonly deny: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1 });
    this.allow = page.getByRole('button', { name: 'Allow' });
    this.deny = page.getByRole('button', { name: 'Deny' });
  }

  /** Waits for the consent page of `origin` asking about `server` (its display name). */
  async expectFor(origin: string, server: string) {
    await expect(this.page).toHaveURL(new RegExp(`^${origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/sandbox/oauth/consent\\?state=st_[\\w-]+$`));
    await expect(this.heading).toHaveText(`Allow access to ${server}?`);
  }

  /** One row of what the page says it is for (Tool server, For the token, Its tools, Then back to). */
  fact(term: string): Locator {
    return this.page.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]');
  }
}
