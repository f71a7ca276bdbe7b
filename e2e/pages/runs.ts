import { expect, type Locator, type Page, type Request } from '@playwright/test';
import { RUN_POST_PATH } from '../../src/contract/run-paths';

/** Demo tokens of the reference service (src/service/seed.ts); public sandbox strings. */
export const AGENT_TOKENS = {
  /** agents.run */
  agents: 'sandbox-agents-1d6f3b9e0a7c2548',
  /** custommetadata:global_scope only: runs are refused with 403. */
  global: 'sandbox-global-3f9c2a7d41e8b605',
  /** custommetadata:global_scope and agents.run: another token that may run agents. */
  everything: 'sandbox-everything-7e2a5c8d1b4f9063',
} as const;

/** One run POST as the reference service received it, as GET /sandbox/runs lists it. */
export interface ServicePost {
  requestId: string;
  path: string;
  status: number;
}

/** One run the reference service started, as GET /sandbox/runs lists it. */
export interface ServiceRun {
  seq: number;
  requestId: string;
  flavour: 'legacy' | 'platform';
  agentId: string;
  mode: 'stream' | 'wait';
  startedAt: string;
  endedAt?: string;
  events?: number;
  outcome?: 'completed' | 'failed' | 'client-closed' | 'dropped';
}

/** True for a POST that starts a run on either API. */
export function isRunPost(request: Request): boolean {
  if (request.method() !== 'POST') return false;
  return RUN_POST_PATH.test(new URL(request.url()).pathname);
}

/**
 * /runs and /runs/:agentId: the agent picker (a combobox), the API and answer choices, the input form built from the agent's
 * schema, the request preview, the live or waited output, and the run history. Also the
 * reference service's own log of runs it started, to check what arrived there.
 */
export class RunsPage {
  readonly main: Locator;
  readonly heading: Locator;

  // The agent picker
  readonly picker: Locator;
  readonly agentList: Locator;
  readonly agentHeading: Locator;

  // How to run
  readonly currentApi: Locator;
  readonly legacyApi: Locator;
  readonly streamAnswer: Locator;
  readonly waitAnswer: Locator;
  readonly durableAnswer: Locator;
  readonly clientTimeout: Locator;
  readonly deprecation: Locator;
  readonly switchToReplacement: Locator;
  readonly schemaError: Locator;
  readonly addFieldsByHand: Locator;

  // The input form
  readonly inputForm: Locator;
  readonly run: Locator;
  readonly stop: Locator;
  readonly inFlightHint: Locator;
  readonly requestLine: Locator;
  readonly preview: Locator;

  // The output of the last run
  readonly output: Locator;
  readonly status: Locator;
  readonly eventCount: Locator;
  readonly warningCount: Locator;
  readonly transcript: Locator;
  readonly timeline: Locator;
  readonly timelineRows: Locator;
  readonly failure: Locator;
  readonly interruption: Locator;
  readonly resultTabs: Locator;

  // History
  readonly history: Locator;
  readonly historyItems: Locator;

  constructor(readonly page: Page) {
    this.main = page.getByRole('main');
    this.heading = this.main.getByRole('heading', { name: 'Agent runs', level: 1 });

    this.picker = this.main.getByRole('combobox', { name: 'Agent' });
    this.agentList = this.main.getByRole('listbox', { name: 'Agents' });
    this.agentHeading = this.main.locator('.agent-head h2');

    this.currentApi = this.main.getByRole('group', { name: 'API' }).getByRole('radio', { name: /^Current/ });
    this.legacyApi = this.main.getByRole('group', { name: 'API' }).getByRole('radio', { name: /^Legacy/ });
    this.streamAnswer = this.main.getByRole('radio', { name: 'Stream (live events)' });
    this.waitAnswer = this.main.getByRole('radio', { name: 'Wait (one answer)' });
    this.durableAnswer = this.main.getByRole('radio', { name: /^Durable/ });
    this.clientTimeout = this.main.getByLabel(/^Client timeout, seconds/);
    this.deprecation = this.main.getByRole('note', { name: 'Deprecated endpoint' });
    this.switchToReplacement = this.deprecation.getByRole('button', { name: 'Switch to the replacement, keeping this input' });
    this.schemaError = this.main.getByRole('alert').filter({ hasText: 'The agent’s input schema could not be loaded' });
    this.addFieldsByHand = this.main.getByRole('button', { name: 'Add input fields by hand' });

    this.inputForm = this.main.getByRole('form', { name: 'Input' });
    this.run = this.main.getByRole('button', { name: /^(Run and (stream|wait)|Start durable run)$/ });
    this.stop = this.main.getByRole('button', { name: 'Stop', exact: true });
    this.inFlightHint = this.main.getByText(/^A run of .+ is in flight; stop it to start another\.$/);
    const request = this.main.getByRole('region', { name: 'Request', exact: true });
    this.requestLine = request.getByText(/^POST \//).first();
    this.preview = this.main.getByLabel('Request body preview');

    this.output = this.main.getByRole('region', { name: 'Run', exact: true });
    this.status = this.output.locator('.response-head [role="status"]');
    this.eventCount = this.output.getByTestId('event-count');
    this.warningCount = this.output.locator('dl.counters div').filter({ hasText: 'Warnings' }).locator('dd');
    this.transcript = this.output.getByLabel('Transcript');
    this.timeline = this.output.getByRole('listbox', { name: /^\d+ events$/ });
    this.timelineRows = this.timeline.getByRole('option');
    this.failure = this.output.getByRole('alert').filter({ has: page.getByRole('heading', { name: /^Run failed/, level: 3 }) });
    this.interruption = this.output.getByRole('alert').filter({ hasText: 'The connection broke before the run ended' });
    this.resultTabs = this.output.getByRole('tablist', { name: 'Run result' });

    this.history = this.main.getByRole('region', { name: 'History' });
    this.historyItems = this.history.getByRole('listitem');
  }

  async open() {
    await this.page.goto('/runs');
    await expect(this.heading).toBeVisible();
  }

  // --- choosing the agent and how to run it

  /** An agent among the picker's matches. */
  agent(name: string | RegExp): Locator {
    return this.agentList.getByRole('option', { name });
  }

  /** Searches the picker by name, as a user does, picks the match, and waits for its input form. */
  async chooseAgent(name: string) {
    await this.picker.fill(name);
    await this.agent(new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`)).click();
    await expect(this.agentHeading).toContainText(name);
    await expect(this.inputForm).toBeVisible();
    await this.toolsSettled();
  }

  /**
   * The agent's tools are drawn above the run's options once read (their part of the page loads
   * when first needed): a click on an option while they arrive can land, on a loaded machine,
   * after the options moved down (the press on one element, the release on another).
   */
  async toolsSettled() {
    const tools = this.main.locator('section.agent-tools');
    // Not drawn without a token that may read them; otherwise there within moments.
    await tools.waitFor({ timeout: 3_000 }).catch(() => undefined);
    await expect(tools.getByText('Reading the agent’s tools…')).toHaveCount(0);
  }

  /** Opens an agent by its exact id, typed into the picker. */
  async openAgentId(id: string) {
    await this.picker.fill(id);
    await this.agentList.getByRole('option', { name: `Open agent id ${id}` }).click();
    await expect(this.page).toHaveURL(new RegExp(`/runs/${encodeURIComponent(id)}$`));
  }

  async useApi(api: 'Current' | 'Legacy') {
    await (api === 'Current' ? this.currentApi : this.legacyApi).check();
  }

  async answerBy(mode: 'stream' | 'wait' | 'durable') {
    await { stream: this.streamAnswer, wait: this.waitAnswer, durable: this.durableAnswer }[mode].check();
  }

  // --- the input form

  /** A form field by its schema title (the label without " *" or " (optional)"). */
  field(title: string): Locator {
    const escaped = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return this.inputForm.getByLabel(new RegExp(`^${escaped}( \\*| \\(optional\\))?$`));
  }

  message(n = 1): Locator {
    return this.inputForm.getByLabel(`Message ${n} text`);
  }

  async writeMessage(text: string, n = 1) {
    await this.message(n).fill(text);
  }

  /** The id of the run the response head tells (none before the first run). */
  async shownRunId(): Promise<string | null> {
    return (await this.status.count()) ? this.status.getAttribute('data-run-id') : null;
  }

  /**
   * Clicks Run (or `button`) and waits until the response head tells the new run, by its id: a
   * status the run before it also had ("Done") then says something of this one.
   */
  async startRun(button: Locator = this.run): Promise<string> {
    const before = await this.shownRunId();
    await button.click();
    await expect(this.status).not.toHaveAttribute('data-run-id', before ?? '');
    await expect(this.status).toHaveAttribute('data-run-id', /.+/);
    return (await this.status.getAttribute('data-run-id'))!;
  }

  /** The request body as the on-page preview shows it. */
  async previewBody(): Promise<unknown> {
    return JSON.parse((await this.preview.textContent()) ?? '') as unknown;
  }

  /** Resolves with the next POST that starts a run. */
  nextRunPost(): Promise<Request> {
    return this.page.waitForRequest(isRunPost);
  }

  /** Every run POST the page sends from now on, as it sends them. */
  recordRunPosts(): Request[] {
    const posts: Request[] = [];
    this.page.on('request', (r) => {
      if (isRunPost(r)) posts.push(r);
    });
    return posts;
  }

  // --- the output

  /** The live event counter's number (it is shown formatted for the reader's locale). */
  async events(): Promise<number> {
    return Number(await this.eventCount.getAttribute('data-count'));
  }

  /** Waits until the live counter shows at least `n` events, and returns the count it saw. */
  async waitForEvents(n: number): Promise<number> {
    let seen = 0;
    await expect
      .poll(async () => {
        seen = await this.events();
        return seen;
      })
      .toBeGreaterThanOrEqual(n);
    return seen;
  }

  /** The explanation of a refused run, by the heading it starts with ("422 …"). */
  refusal(heading: string | RegExp): Locator {
    return this.main.getByRole('alert').filter({ has: this.page.getByRole('heading', { name: heading, level: 3 }) });
  }

  // --- an agent's tools, and a refusal for unauthorized ones

  /** The agent's tools and what they say about approval, on the request side. */
  tools(): Locator {
    return this.main.getByRole('region', { name: 'Tools' });
  }

  approvalNote(): Locator {
    return this.tools().getByRole('note', { name: 'Approval' });
  }

  /** The tool servers a refusal names, each with its status and Authorize (the newest turn's, in a conversation). */
  toolServers(): Locator {
    return this.output.getByRole('region', { name: 'Tool servers to authorize' }).last();
  }

  toolServer(name: string): Locator {
    return this.toolServers().getByRole('listitem', { name });
  }

  authorize(name: string): Locator {
    return this.toolServer(name).getByRole('button', { name: `Authorize ${name}` });
  }

  runAgain(): Locator {
    return this.toolServers().getByRole('button', { name: 'Run again' });
  }

  /** What the page says on coming back from a consent page. */
  consentReturn(): Locator {
    return this.main.getByRole('status').filter({ hasText: /^Back from the consent page/ });
  }

  resultTab(name: 'Transcript' | 'Raw JSON' | 'Response'): Locator {
    return this.resultTabs.getByRole('tab', { name });
  }

  resultPanel(): Locator {
    return this.output.getByRole('tabpanel');
  }

  // --- history

  historyItem(n = 1): Locator {
    return this.historyItems.nth(n - 1);
  }

  // --- the reference service's own log

  /** The runs the service started, oldest first. */
  async serviceRuns(): Promise<ServiceRun[]> {
    const response = await this.page.request.get('/sandbox/runs');
    expect(response.status()).toBe(200);
    return ((await response.json()) as { runs: ServiceRun[] }).runs;
  }

  /** The service's last run number, to count the runs started after it. */
  async serviceSeq(): Promise<number> {
    const runs = await this.serviceRuns();
    return runs.length ? runs[runs.length - 1]!.seq : 0;
  }

  /** Every run POST the service received (refused ones too), oldest first. */
  async servicePosts(): Promise<ServicePost[]> {
    const response = await this.page.request.get('/sandbox/runs');
    expect(response.status()).toBe(200);
    return ((await response.json()) as { posts: ServicePost[] }).posts;
  }

  /** Runs the service started after `seq`. */
  async serviceRunsAfter(seq: number): Promise<ServiceRun[]> {
    return (await this.serviceRuns()).filter((r) => r.seq > seq);
  }
}
