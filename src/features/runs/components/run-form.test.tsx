import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useId, useMemo } from 'react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { JsonSchema } from '../../../contract/agents';
import type { RunParts } from '../../../engine/run-request';
import { fieldsOf } from '../model/schema-form';
import { RunForm } from './run-form';

/** One property of every kind the form builds, required and optional, one nested object. */
const SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', title: 'Title', minLength: 1 },
    note: { type: 'string', title: 'Note' },
    region: { type: 'string', title: 'Region', enum: ['emea', 'apac'] },
    count: { type: 'integer', title: 'Count', minimum: 1 },
    ratio: { type: 'number', title: 'Ratio' },
    urgent: { type: 'boolean', title: 'Urgent' },
    tags: { type: 'array', title: 'Tags', items: { type: 'string' } },
    extra: { title: 'Extra' },
    owner: {
      type: 'object',
      title: 'Owner',
      properties: { name: { type: 'string', title: 'Owner name' }, active: { type: 'boolean', title: 'Active' } },
    },
  },
  required: ['title', 'region'],
};

function Harness({ schema, onRun, agentId = 'test-agent', takesMessages = false }: { schema: JsonSchema; onRun(p: RunParts): void; agentId?: string; takesMessages?: boolean }) {
  const formId = useId();
  const fields = useMemo(() => fieldsOf(schema), [schema]);
  return (
    <>
      <RunForm formId={formId} agentId={agentId} schema={schema} fields={fields} takesMessages={takesMessages} refusal={undefined} onRun={onRun} />
      <button type="submit" form={formId}>
        Run
      </button>
    </>
  );
}

beforeEach(() => localStorage.clear());
afterEach(() => cleanup());

it('builds a control for every kind of property and sends the complete input, empty optional values as "" and false', async () => {
  const user = userEvent.setup();
  const onRun = vi.fn();
  render(<Harness schema={SCHEMA} onRun={onRun} />);
  expect(screen.getByRole('textbox', { name: /^Title/ })).toBeTruthy();
  expect(screen.getByRole('combobox', { name: /^Region/ })).toBeTruthy();
  expect(screen.getByRole('spinbutton', { name: /^Count/ })).toBeTruthy();
  expect(screen.getByRole('spinbutton', { name: /^Ratio/ })).toBeTruthy();
  expect(screen.getByRole('checkbox', { name: /^Urgent/ })).toBeTruthy();
  expect(screen.getByRole('textbox', { name: /^Tags/ }).tagName).toBe('TEXTAREA');
  expect(screen.getByRole('textbox', { name: /^Extra/ }).tagName).toBe('TEXTAREA');
  const owner = screen.getByRole('group', { name: /^Owner/ });
  expect(within(owner).getByRole('textbox', { name: /^Owner name/ })).toBeTruthy();

  await user.type(screen.getByRole('textbox', { name: /^Title/ }), 'Quarterly');
  await user.selectOptions(screen.getByRole('combobox', { name: /^Region/ }), 'apac');
  await user.click(screen.getByRole('button', { name: 'Run' }));
  expect(onRun).toHaveBeenCalledTimes(1);
  expect(onRun.mock.calls[0]![0]).toEqual({
    input: { title: 'Quarterly', note: '', region: 'apac', count: '', ratio: '', urgent: false, tags: '', extra: '', owner: { name: '', active: false } },
  });
});

it('sends typed values with their types: numbers, booleans, lists and JSON', async () => {
  const user = userEvent.setup();
  const onRun = vi.fn();
  render(<Harness schema={SCHEMA} onRun={onRun} />);
  await user.type(screen.getByRole('textbox', { name: /^Title/ }), 'T');
  await user.selectOptions(screen.getByRole('combobox', { name: /^Region/ }), 'emea');
  await user.type(screen.getByRole('spinbutton', { name: /^Count/ }), '3');
  await user.type(screen.getByRole('spinbutton', { name: /^Ratio/ }), '0.5');
  await user.click(screen.getByRole('checkbox', { name: /^Urgent/ }));
  await user.type(screen.getByRole('textbox', { name: /^Tags/ }), 'a{Enter}b');
  await user.click(screen.getByRole('textbox', { name: /^Extra/ }));
  await user.paste('{"k": [1, 2]}');
  await user.type(screen.getByRole('textbox', { name: /^Owner name/ }), 'Ada');
  await user.click(screen.getByRole('button', { name: 'Run' }));
  expect(onRun.mock.calls[0]![0]).toEqual({
    input: { title: 'T', note: '', region: 'emea', count: 3, ratio: 0.5, urgent: true, tags: ['a', 'b'], extra: { k: [1, 2] }, owner: { name: 'Ada', active: false } },
  });
});

it('blocks a run missing required fields, says which, and keeps what was typed', async () => {
  const user = userEvent.setup();
  const onRun = vi.fn();
  render(<Harness schema={SCHEMA} onRun={onRun} />);
  await user.type(screen.getByRole('textbox', { name: /^Note/ }), 'kept');
  await user.click(screen.getByRole('button', { name: 'Run' }));
  expect(onRun).not.toHaveBeenCalled();
  const title = screen.getByRole('textbox', { name: /^Title/ });
  expect(title.getAttribute('aria-invalid')).toBe('true');
  expect(screen.getByRole('combobox', { name: /^Region/ }).getAttribute('aria-invalid')).toBe('true');
  expect(document.activeElement).toBe(title);
  expect(screen.getByRole<HTMLInputElement>('textbox', { name: /^Note/ }).value).toBe('kept');
});

it('keeps typed values for the agent across a remount (a reload), and not for another agent', async () => {
  const user = userEvent.setup();
  const { unmount } = render(<Harness schema={SCHEMA} onRun={() => undefined} />);
  await user.type(screen.getByRole('textbox', { name: /^Title/ }), 'Saved title');
  unmount();
  const again = render(<Harness schema={SCHEMA} onRun={() => undefined} />);
  expect(screen.getByRole<HTMLInputElement>('textbox', { name: /^Title/ }).value).toBe('Saved title');
  again.unmount();
  render(<Harness schema={SCHEMA} agentId="another-agent" onRun={() => undefined} />);
  expect(screen.getByRole<HTMLInputElement>('textbox', { name: /^Title/ }).value).toBe('');
});

it('Run with no message written sends nothing and takes focus to the first message, which names the problem; written, it runs', async () => {
  const user = userEvent.setup();
  const onRun = vi.fn();
  render(<Harness schema={{ type: 'object', properties: {} }} onRun={onRun} agentId="messages-agent" takesMessages />);
  await user.click(screen.getByRole('button', { name: 'Run' }));
  const first = screen.getByRole('textbox', { name: 'Message 1 text' });
  expect(onRun).not.toHaveBeenCalled();
  expect(document.activeElement).toBe(first);
  expect(first.getAttribute('aria-invalid')).toBe('true');
  expect(document.getElementById(first.getAttribute('aria-describedby')!)?.textContent).toBe('Write at least one message.');
  await user.type(first, 'hello');
  await user.click(screen.getByRole('button', { name: 'Run' }));
  expect(onRun).toHaveBeenCalledTimes(1);
  expect(first.hasAttribute('aria-invalid')).toBe(false);
});
