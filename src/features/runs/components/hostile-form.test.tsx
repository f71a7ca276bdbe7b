/**
 * The run form against schemas an instance may send to hurt the page (issue 27): a pattern that
 * backtracks forever, one the page cannot check, thousands of fields, an enum of thousands of values.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useId, useMemo } from 'react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { JsonSchema } from '../../../contract/agents';
import type { RunParts } from '../../../engine/run-request';
import { fieldsOf } from '../model/schema-form';
import { RunForm } from './run-form';

function Harness({ schema, onRun }: { schema: JsonSchema; onRun(p: RunParts): void }) {
  const formId = useId();
  const fields = useMemo(() => fieldsOf(schema), [schema]);
  return (
    <>
      <RunForm formId={formId} agentId="hostile" schema={schema} fields={fields} takesMessages={false} refusal={undefined} onRun={onRun} />
      <button type="submit" form={formId}>
        Run
      </button>
    </>
  );
}

const hintOf = (input: HTMLElement) => document.getElementById(input.getAttribute('aria-describedby')!)!;

beforeEach(() => localStorage.clear());
afterEach(() => cleanup());

it('checks a catastrophic pattern at once, and says beside a field that its pattern is not checked here', async () => {
  const user = userEvent.setup();
  const schema: JsonSchema = {
    type: 'object',
    properties: { code: { type: 'string', title: 'Code', pattern: '^(a+)+$' }, pin: { type: 'string', title: 'PIN', pattern: '^(?=.*\\d).+$' } },
    required: ['code'],
  };
  render(<Harness schema={schema} onRun={vi.fn()} />);
  const code = screen.getByRole('textbox', { name: /^Code/ });
  const started = performance.now();
  await user.type(code, `${'a'.repeat(30)}!`);
  await waitFor(() => expect(hintOf(code).textContent).toContain('must match pattern "^(a+)+$".'));
  // The backtracking engine would take minutes over these 31 keystrokes; generous for a loaded machine.
  expect(performance.now() - started).toBeLessThan(10_000);
  const pin = screen.getByRole('textbox', { name: /^PIN/ });
  expect(hintOf(pin).textContent).toMatch(/Pattern not checked here \(\^\(\?=\.\*\\d\)\.\+\$\): the page matches patterns in linear time \(RE2\).*The service checks it when the run is sent\./);
  expect(hintOf(code).textContent).not.toContain('not checked');
});

it('shows a form of 1,000 fields in part, finds a field by name, keeps what was typed, and sends every field', async () => {
  const user = userEvent.setup();
  const properties: Record<string, JsonSchema> = { choice: { type: 'string', title: 'Choice', enum: Array.from({ length: 2_000 }, (_, i) => `value-${i}`) } };
  for (let i = 1; i < 1_000; i++) properties[`field${i}`] = { type: 'string', title: `Field ${i}` };
  const onRun = vi.fn();
  render(<Harness schema={{ type: 'object', properties, required: ['choice'] }} onRun={onRun} />);
  expect(screen.getByText(/^This form has 1,000 fields: the page holds those in view/)).toBeTruthy();
  expect(document.querySelectorAll('form input, form select, form textarea').length).toBeLessThan(100);

  await user.type(screen.getByRole('searchbox', { name: 'Find a field' }), 'Field 999');
  expect(await screen.findByText('1 of 1,000 fields match.')).toBeTruthy();
  await user.type(screen.getByRole('textbox', { name: /^Field 999/ }), 'far down');

  await user.clear(screen.getByRole('searchbox', { name: 'Find a field' }));
  await user.type(screen.getByRole('searchbox', { name: 'Find a field' }), 'Choice');
  const choice = await screen.findByRole('combobox', { name: /^Choice/ });
  expect(choice.tagName).toBe('INPUT');
  expect(hintOf(choice).textContent).toContain('2,000 allowed values: type to find one');
  await user.type(choice, 'value-1999');
  await waitFor(() => expect(document.querySelectorAll(`#${choice.getAttribute('list')} option`).length).toBe(1));

  await user.click(screen.getByRole('button', { name: 'Run' }));
  await waitFor(() => expect(onRun).toHaveBeenCalledTimes(1));
  const input = (onRun.mock.calls[0]![0] as RunParts).input!;
  expect(Object.keys(input)).toHaveLength(1_000);
  expect(input.choice).toBe('value-1999');
  expect(input.field999).toBe('far down');
  expect(input.field1).toBe('');
});

it('names the fields with problems of a large form that are out of view, each a click away', async () => {
  const user = userEvent.setup();
  const properties: Record<string, JsonSchema> = {};
  for (let i = 1; i <= 300; i++) properties[`field${i}`] = { type: 'string', title: `Field ${i}`, minLength: 1 };
  render(<Harness schema={{ type: 'object', properties, required: ['field250'] }} onRun={vi.fn()} />);
  await user.click(screen.getByRole('button', { name: 'Run' }));
  const link = await screen.findByRole('button', { name: 'Field 250' });
  await user.click(link);
  const field = await screen.findByRole('textbox', { name: /^Field 250/ });
  expect(hintOf(field).textContent).toContain('Required.');
});
