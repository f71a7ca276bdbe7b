import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';

/** The app shell: navigation shared by every page. */
export class Shell {
  constructor(readonly page: Page) {}

  async open(path = '/') {
    await this.page.goto(path);
  }

  nav() {
    return this.page.getByRole('navigation', { name: 'Main' });
  }

  async go(section: 'Connection' | 'Schemas' | 'Agent runs') {
    await this.nav().getByRole('link', { name: section }).click();
  }

  /** Fails with the list of violations when axe finds any on the current page. */
  async expectNoAxeViolations() {
    const results = await new AxeBuilder({ page: this.page }).analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  }
}

export const test = base.extend<{ shell: Shell }>({
  shell: async ({ page }, use) => {
    await use(new Shell(page));
  },
});

export { expect };
