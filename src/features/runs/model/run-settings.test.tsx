import { act, renderHook } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { loadRunSettings, useRunSettings } from './run-settings';

afterEach(() => localStorage.clear());

it('a mode chosen is kept in this browser: the page opened again shows it', () => {
  const { result, unmount } = renderHook(() => useRunSettings());
  result.current.update('failing-job', { mode: 'durable' });
  unmount();
  expect(loadRunSettings('failing-job').mode).toBe('durable');
});

it('a choice shows on the next render and marks the agent as chosen', () => {
  const { result } = renderHook(() => useRunSettings());
  expect(result.current.chosen('expense-filer')).toBe(false);
  act(() => result.current.update('expense-filer', { mode: 'wait', timeoutSec: '30' }));
  expect(result.current.settingsOf('expense-filer')).toMatchObject({ mode: 'wait', timeoutSec: '30' });
  expect(result.current.chosen('expense-filer')).toBe(true);
  act(() => result.current.update('expense-filer', { flavour: 'legacy' }));
  expect(result.current.settingsOf('expense-filer')).toMatchObject({ mode: 'wait', flavour: 'legacy', timeoutSec: '30' });
});
