import { expect, type Locator, type Page } from '@playwright/test';

export type SchemaTab = 'Keys' | 'Raw JSON' | 'Response';
export type PropertyType = 'TEXT' | 'PICKLIST' | 'TEXTLIST' | 'MULTIPICKLIST';

/** /schemas and /schemas/:group: the group form, the schema view, its editor, and document values. */
export class SchemasPage {
  readonly main: Locator;
  readonly heading: Locator;
  readonly groupName: Locator;
  readonly groupNameHint: Locator;
  readonly openSchema: Locator;
  readonly recent: Locator;

  readonly refetch: Locator;
  readonly freshness: Locator;
  readonly scopeWarning: Locator;
  readonly sendAnyway: Locator;

  readonly editSchema: Locator;
  readonly deleteSchema: Locator;
  readonly confirmDeletion: Locator;

  /** The page's own code block (the GET, or the DELETE while deletion is confirmed). */
  readonly code: Locator;
  readonly curl: Locator;
  readonly copyCurl: Locator;
  readonly includeToken: Locator;
  readonly curlStatus: Locator;

  constructor(readonly page: Page) {
    this.main = page.getByRole('main');
    this.heading = this.main.getByRole('heading', { name: 'Schemas', level: 1 });
    this.groupName = this.main.getByLabel('Group name');
    this.groupNameHint = this.main.locator('#group-name-hint');
    this.openSchema = this.main.getByRole('button', { name: 'Open schema' });
    this.recent = this.main.getByRole('navigation', { name: 'Recent groups' });

    this.refetch = this.main.getByRole('button', { name: /^(Refetch|Fetching…)$/ });
    this.freshness = this.main.getByText(/^Fetched /);
    this.scopeWarning = this.main.getByRole('alert').filter({ hasText: 'will be refused with 401' });
    this.sendAnyway = this.main.getByRole('button', { name: 'Read the schema anyway (GET)' });

    this.editSchema = this.main.getByRole('button', { name: 'Edit schema' });
    this.deleteSchema = this.main.getByRole('button', { name: 'Delete schema' });
    this.confirmDeletion = this.main.getByRole('group', { name: 'Confirm deletion' });

    this.code = this.main.locator('.code-snippets').first();
    this.curl = this.code.getByLabel('curl command');
    this.copyCurl = this.code.getByRole('button', { name: 'Copy curl' });
    this.includeToken = this.code.getByLabel('Include token');
    this.curlStatus = this.code.getByRole('status');
  }

  async open(group?: string) {
    await this.page.goto(group === undefined ? '/schemas' : `/schemas/${group}`);
    await expect(this.heading).toBeVisible();
  }

  /** Types a group name and presses "Open schema", as a user does. */
  async openGroup(group: string) {
    await this.groupName.fill(group);
    await this.openSchema.click();
  }

  // --- the schema view

  groupHeading(group: string): Locator {
    return this.main.getByRole('heading', { name: `Group ${group}`, level: 2 });
  }

  tabs(group: string): Locator {
    return this.main.getByRole('tablist', { name: `Schema of ${group}` });
  }

  tab(name: SchemaTab): Locator {
    return this.main.getByRole('tab', { name: name === 'Keys' ? /^Keys \(\d+\)$/ : name });
  }

  /** The schema view's panel (the code block has tab panels of its own). */
  tabPanel(): Locator {
    return this.main.getByRole('tabpanel', { name: /^(Keys \(\d+\)|Raw JSON|Response)$/ });
  }

  keysTable(group: string): Locator {
    return this.main.getByRole('table', { name: `Keys of group ${group}` });
  }

  keyRow(group: string, key: string): Locator {
    return this.keysTable(group).getByRole('row').filter({ has: this.page.getByRole('cell', { name: key, exact: true }) });
  }

  /** Fails unless the keys table lists exactly these keys with these types, in order. */
  async expectKeys(group: string, keys: [name: string, type: PropertyType][]) {
    const table = this.keysTable(group);
    await expect(table).toBeVisible();
    await expect(table.locator('tbody tr td:nth-child(1)')).toHaveText(keys.map(([n]) => n));
    await expect(table.locator('tbody tr td:nth-child(2)')).toHaveText(keys.map(([, t]) => t));
  }

  /** The response details (Response tab, or "Response details" of an error): a label's value. */
  meta(label: 'Request' | 'Status' | 'Duration' | 'Request id' | 'Revalidated'): Locator {
    return this.main.locator('dl.meta-grid dt').filter({ hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');
  }

  responseHeaders(): Locator {
    return this.main.getByRole('table', { name: 'Response headers' });
  }

  // --- errors

  /** The explanation of a failed request, found by its heading. */
  /** A group without a schema: not an error, a state with a way to create one. */
  noSchema(group: string): Locator {
    return this.main.getByRole('region', { name: `No schema defined for group “${group}”` });
  }

  /** What the page says after a save or delete succeeded (focus goes there). */
  noticeBox(): Locator {
    return this.main.locator('[role="status"] > .notice');
  }

  /** The words of that confirmation. */
  notice(): Locator {
    return this.noticeBox().locator('.notice-text');
  }

  /** Status, time and size of an answer, as the line under it says them. */
  answerSummary(within: Locator = this.main): Locator {
    return within.locator('.response-summary');
  }

  error(heading: string | RegExp): Locator {
    return this.main.getByRole('alert').filter({ has: this.page.getByRole('heading', { name: heading, level: 3 }) });
  }

  createSchemaFor(group: string): Locator {
    return this.main.getByRole('button', { name: `Create a schema for ${group}` });
  }

  // --- the editor

  editor(): Locator {
    return this.main.getByRole('form', { name: /^(Edit schema of|New schema for) / });
  }

  keyName(n: number): Locator {
    return this.main.getByRole('textbox', { name: `Key ${n} name`, exact: true });
  }

  keyType(n: number): Locator {
    return this.main.getByRole('combobox', { name: `Key ${n} type`, exact: true });
  }

  keySkipIndexing(n: number): Locator {
    return this.main.getByRole('checkbox', { name: `Key ${n} skip indexing`, exact: true });
  }

  removeKey(n: number): Locator {
    return this.main.getByRole('button', { name: `Remove key ${n}`, exact: true });
  }

  get addKey(): Locator {
    return this.main.getByRole('button', { name: 'Add key' });
  }

  get reviewChanges(): Locator {
    return this.main.getByRole('button', { name: 'Review changes' });
  }

  review(group: string): Locator {
    return this.main.getByRole('region', { name: `Review changes to ${group}` });
  }

  get saveSchema(): Locator {
    return this.main.getByRole('button', { name: /^(Save schema|Create schema)$/ });
  }

  get backToEditing(): Locator {
    return this.main.getByRole('button', { name: 'Back to editing' });
  }

  /** Appends a key in the editor and fills it in. */
  async addKeyRow(name: string, type: PropertyType = 'TEXT') {
    // Keys by their name fields: a table's rows on a wide screen, cards on a phone.
    const rows = this.editor().getByRole('textbox', { name: /^Key \d+ name$/ });
    const n = (await rows.count()) + 1;
    await this.addKey.click();
    await expect(rows).toHaveCount(n);
    await this.keyName(n).fill(name);
    await this.keyType(n).selectOption(type);
  }

  // --- document values

  documentValues(group: string): Locator {
    return this.main.getByRole('form', { name: `Document values in ${group}` });
  }

  /** The input of one key in the document values form, by its name. */
  documentField(group: string, key: string): Locator {
    return this.documentValues(group).getByLabel(new RegExp(`^${key} \\(`));
  }
}
