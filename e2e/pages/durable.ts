import { expect, type Locator, type Page } from '@playwright/test';

/**
 * A durable run as the console shows it: on its own page (/runs/:agentId/:runId, the whole
 * main area) or inline under the runs page's Run heading (`root`), the same view either way.
 */
export class DurableRunPage {
  readonly main: Locator;
  readonly heading: Locator;
  readonly state: Locator;
  readonly transcript: Locator;
  readonly approvals: Locator;
  readonly submit: Locator;
  readonly cancel: Locator;
  readonly confirmCancel: Locator;
  readonly statesSeen: Locator;
  readonly expiresIn: Locator;
  readonly ownPageLink: Locator;

  constructor(
    readonly page: Page,
    root?: Locator,
  ) {
    this.main = root ?? page.getByRole('main');
    this.heading = page.getByRole('main').getByRole('heading', { level: 1 });
    this.state = this.main.getByRole('status', { name: 'Run state' });
    this.transcript = this.main.getByLabel('Transcript');
    this.approvals = this.main.getByRole('region', { name: /^The agent asks to use/ });
    this.submit = this.approvals.getByRole('button', { name: /^Submit decision/ });
    this.cancel = this.main.getByRole('button', { name: 'Cancel run…' });
    this.confirmCancel = this.main.getByRole('group', { name: 'Confirm cancellation' }).getByRole('button', { name: 'Yes, cancel the run' });
    this.statesSeen = this.main.getByRole('list', { name: 'States seen' });
    this.expiresIn = this.main.getByText(/^Expires in /);
    this.ownPageLink = this.main.getByRole('link', { name: 'Open the run’s own page' });
  }

  /** The run id: from the address on the run's own page, else from the link to it. */
  async runId(): Promise<string> {
    const path = new URL(this.page.url()).pathname.split('/');
    if (path.length === 4) return decodeURIComponent(path.at(-1)!);
    const href = await this.ownPageLink.getAttribute('href');
    return decodeURIComponent(href!.split('/').at(-1)!);
  }

  /** Follows the link to the run's own page, and answers that page. */
  async openOwnPage(): Promise<DurableRunPage> {
    await this.ownPageLink.click();
    await expect(this.page).toHaveURL(/\/runs\/[^/]+\/[^/]+$/);
    return new DurableRunPage(this.page);
  }

  tool(name: string): Locator {
    return this.approvals.getByRole('listitem', { name: `Tool ${name}` });
  }

  /** A batch: marks one decision; Submit sends them all. */
  async decide(tool: string, decision: 'Approve' | 'Reject') {
    await this.tool(tool).getByRole('radio', { name: decision }).check();
  }

  /** A single request: one click sends the decision. */
  async decideNow(tool: string, decision: 'Approve' | 'Reject') {
    await this.tool(tool).getByRole('group', { name: `Decision on ${tool}` }).getByRole('button', { name: decision }).click();
  }

  async expectState(text: string | RegExp) {
    await expect(this.state).toHaveText(text, { timeout: 20_000 });
  }
}
