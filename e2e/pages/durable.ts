import { expect, type Locator, type Page } from '@playwright/test';

/** /runs/:agentId/:runId: a durable run, followed by reading it. */
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

  constructor(readonly page: Page) {
    this.main = page.getByRole('main');
    this.heading = this.main.getByRole('heading', { level: 1 });
    this.state = this.main.getByRole('status', { name: 'Run state' });
    this.transcript = this.main.getByLabel('Transcript');
    this.approvals = this.main.getByRole('region', { name: /^The agent asks to use/ });
    this.submit = this.approvals.getByRole('button', { name: /^Submit decision/ });
    this.cancel = this.main.getByRole('button', { name: 'Cancel run…' });
    this.confirmCancel = this.main.getByRole('group', { name: 'Confirm cancellation' }).getByRole('button', { name: 'Yes, cancel the run' });
    this.statesSeen = this.main.getByRole('list', { name: 'States seen' });
    this.expiresIn = this.main.getByText(/^Expires in /);
  }

  /** The run id this page follows, from its address. */
  runId(): string {
    return decodeURIComponent(new URL(this.page.url()).pathname.split('/').at(-1)!);
  }

  tool(name: string): Locator {
    return this.approvals.getByRole('listitem', { name: `Tool ${name}` });
  }

  async decide(tool: string, decision: 'Approve' | 'Reject') {
    await this.tool(tool).getByRole('radio', { name: decision }).check();
  }

  async expectState(text: string | RegExp) {
    await expect(this.state).toHaveText(text, { timeout: 20_000 });
  }
}
