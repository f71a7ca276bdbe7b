import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';
import { ConnectionPage } from './pages/connection';
import { SchemasPage } from './pages/schemas';
import { RunsPage } from './pages/runs';
import { ConsentPage } from './pages/consent';

/** The app shell: navigation shared by every page. */
export class Shell {
  constructor(readonly page: Page) {}

  async open(path = '/') {
    await this.page.goto(path);
  }

  nav() {
    return this.page.getByRole('navigation', { name: 'Main' });
  }

  async go(section: 'Connection' | 'Schemas' | 'Agent runs' | 'Suites') {
    await this.nav().getByRole('link', { name: section }).click();
  }

  /** Fails with the list of violations when axe finds any on the current page. */
  async expectNoAxeViolations() {
    // Legacy mode runs axe in the page itself instead of finishing in a new page: the console
    // has no iframes to scan, and it makes each scan about a second faster.
    const results = await new AxeBuilder({ page: this.page }).setLegacyMode(true).analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
  }

  /** Everything in the page's localStorage and sessionStorage, as key → raw value. */
  async storage(): Promise<{ local: Record<string, string>; session: Record<string, string> }> {
    // A string, not a function: the e2e sources are type-checked without the DOM library.
    return this.page.evaluate<{ local: Record<string, string>; session: Record<string, string> }>(
      '({ local: { ...localStorage }, session: { ...sessionStorage } })',
    );
  }
}

export const test = base.extend<{ shell: Shell; connection: ConnectionPage; schemas: SchemasPage; runs: RunsPage; consent: ConsentPage }>({
  shell: async ({ page }, use) => {
    await use(new Shell(page));
  },
  connection: async ({ page }, use) => {
    await use(new ConnectionPage(page));
  },
  schemas: async ({ page }, use) => {
    await use(new SchemasPage(page));
  },
  runs: async ({ page }, use) => {
    await use(new RunsPage(page));
  },
  consent: async ({ page }, use) => {
    await use(new ConsentPage(page));
  },
});

export { expect };
