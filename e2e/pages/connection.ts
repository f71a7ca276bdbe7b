import { expect, type Locator, type Page } from '@playwright/test';

/** Demo tokens of the reference service (src/service/seed.ts); public sandbox strings. */
export const TOKENS = {
  global: 'sandbox-global-3f9c2a7d41e8b605',
  sales: 'sandbox-sales-8b1e6d0c93a2f457',
  hr: 'sandbox-hr-52d7a9f10c6e3b84',
} as const;

export type ConnectMode = 'same-origin' | 'proxy' | 'direct';

const MODE_LABEL: Record<ConnectMode, string> = {
  'same-origin': 'Bundled reference service',
  proxy: 'Instance, via this console’s server',
  direct: 'Instance, directly (needs CORS)',
};

export interface NewProfile {
  name: string;
  token?: string;
  scopes?: string;
  mode?: ConnectMode;
  /** direct: the instance URL; proxy: the upstream origin. */
  target?: string;
}

/**
 * The connection panel, always at hand on the left, and the /connection page with its
 * profile list and sandbox token panel.
 */
export class ConnectionPage {
  readonly panel: Locator;
  readonly profile: Locator;
  /** The option of the profile select that is chosen. */
  readonly selectedProfile: Locator;
  readonly profileName: Locator;
  readonly connectTo: Locator;
  readonly upstream: Locator;
  readonly instanceUrl: Locator;
  readonly token: Locator;
  readonly showToken: Locator;
  readonly hideToken: Locator;
  readonly clearToken: Locator;
  /** The "Token: abc…••••" line under the field. */
  readonly tokenSummary: Locator;
  readonly remember: Locator;
  readonly scopes: Locator;
  readonly screenShare: Locator;
  readonly outcomes: Locator;

  readonly heading: Locator;
  readonly profiles: Locator;
  readonly newProfileButton: Locator;
  readonly sandbox: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByRole('complementary', { name: 'Connection' });
    this.profile = this.panel.getByLabel('Profile', { exact: true });
    this.selectedProfile = this.profile.locator('option:checked');
    this.profileName = this.panel.getByLabel('Profile name');
    this.connectTo = this.panel.getByLabel('Connect to');
    this.upstream = this.panel.getByLabel('Upstream');
    this.instanceUrl = this.panel.getByLabel('Instance URL');
    this.token = this.panel.getByLabel('Bearer token');
    this.showToken = this.panel.getByRole('button', { name: 'Show' });
    this.hideToken = this.panel.getByRole('button', { name: 'Hide' });
    this.clearToken = this.panel.getByRole('button', { name: 'Clear' });
    this.tokenSummary = this.panel.getByText(/^Token:/);
    this.remember = this.panel.getByLabel('Remember on this device');
    this.scopes = this.panel.getByLabel('Scopes this token has');
    this.screenShare = this.panel.getByLabel(/^Screen-share mode/);
    this.outcomes = this.panel.getByRole('group', { name: 'Groups seen with this profile' });

    const main = page.getByRole('main');
    this.heading = main.getByRole('heading', { name: 'Connection', level: 1 });
    this.profiles = main.getByRole('region', { name: 'Profiles' });
    this.newProfileButton = this.profiles.getByRole('button', { name: 'New profile' });
    this.sandbox = main.getByRole('region', { name: 'Sandbox tokens' });
  }

  async open() {
    await this.page.goto('/connection');
    await expect(this.heading).toBeVisible();
  }

  /** Goes to /connection the way a user does, through the main navigation, keeping the page's state. */
  async goToPage() {
    await this.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connection' }).click();
    await expect(this.heading).toBeVisible();
  }

  /** On a narrow screen the panel is a summary line; opens it so its fields can be used. */
  async expand() {
    const details = this.panel.locator('details');
    if ((await details.count()) && !(await details.evaluate((d) => (d as { open: boolean }).open))) await this.panel.locator('summary').click();
  }

  async setToken(token: string) {
    await this.expand();
    await this.token.fill(token);
  }

  async setScopes(scopes: string) {
    await this.scopes.fill(scopes);
  }

  async connectVia(mode: ConnectMode, target?: string) {
    await this.connectTo.selectOption({ label: MODE_LABEL[mode] });
    if (mode === 'direct' && target !== undefined) await this.instanceUrl.fill(target);
    if (mode === 'proxy' && target !== undefined) await this.upstream.selectOption(target);
  }

  /** Adds a profile from the Profiles list (it becomes the active one), then fills it in in the panel. */
  async createProfile({ name, token, scopes, mode, target }: NewProfile) {
    if (!(await this.heading.isVisible())) await this.goToPage();
    const before = await this.profile.locator('option').count();
    await this.newProfileButton.click();
    await expect(this.profile.locator('option')).toHaveCount(before + 1);
    await this.profileName.fill(name);
    await expect(this.selectedProfile).toHaveText(name);
    if (mode) await this.connectVia(mode, target);
    if (token !== undefined) await this.setToken(token);
    if (scopes !== undefined) await this.setScopes(scopes);
  }

  /** Switches with the profile select of the panel: one action. */
  async switchTo(name: string) {
    await this.profile.selectOption({ label: name });
    await expect(this.profileName).toHaveValue(name);
  }

  /** The row of a profile in the Profiles list of /connection. */
  profileRow(name: string): Locator {
    return this.profiles.getByRole('listitem').filter({ has: this.page.getByText(name, { exact: true }) });
  }

  // The sandbox panel of /connection.
  sandboxScope(scope: string): Locator {
    return this.sandbox.getByRole('checkbox', { name: new RegExp(`^${scope.replace('.', '\\.')}`) });
  }

  async mintSandboxToken({ global = false, agents = false, groups = '', label }: { global?: boolean; agents?: boolean; groups?: string; label: string }) {
    await this.sandboxScope('custommetadata:global_scope').setChecked(global);
    await this.sandboxScope('agents.run').setChecked(agents);
    await this.sandbox.getByLabel('Groups (one scope each)').fill(groups);
    await this.sandbox.getByLabel('Label (optional)').fill(label);
    await this.sandbox.getByRole('button', { name: 'Mint token and add profile' }).click();
    await expect(this.sandbox.getByRole('status')).toHaveText(`Added profile “${label}” and switched to it.`);
  }
}

/** The prompt a page that needs a token shows while the profile has none (TokenGate). */
export class TokenPrompt {
  readonly region: Locator;
  readonly token: Locator;
  readonly remember: Locator;
  readonly use: Locator;

  constructor(readonly page: Page) {
    this.region = page.getByRole('main').getByRole('region', { name: 'A token is needed for this page' });
    this.token = this.region.getByLabel('Bearer token');
    this.remember = this.region.getByLabel('Remember on this device');
    this.use = this.region.getByRole('button', { name: 'Use this token' });
  }

  demo(label: string): Locator {
    return this.region.getByRole('button', { name: `Use “${label}”` });
  }
}
