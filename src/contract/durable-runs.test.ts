import { describe, expect, test } from 'vitest';
import { durableOutputText, isActiveState, isKnownState, isPausedState, isTerminalState, DURABLE_STATES } from './durable-runs.ts';

describe('durable run states', () => {
  test('each known state is exactly one of active, paused or terminal', () => {
    for (const s of DURABLE_STATES) {
      expect([isActiveState(s), isPausedState(s), isTerminalState(s)].filter(Boolean), s).toHaveLength(1);
    }
  });

  test('an unknown state is read as it is: not known, not active, not terminal', () => {
    expect(isKnownState('ARCHIVED')).toBe(false);
    expect(isActiveState('ARCHIVED')).toBe(false);
    expect(isTerminalState('ARCHIVED')).toBe(false);
  });
});

describe('durableOutputText', () => {
  test('joins the messages\' text blocks, a line per message', () => {
    const text = (t: string) => ({ type: 'text' as const, text: t });
    expect(
      durableOutputText({ output: { messages: [{ role: 'GLEAN_AI', content: [text('Step 1 '), text('done.')] }, { role: 'GLEAN_AI', content: [text('Step 2 done.')] }] } }),
    ).toBe('Step 1 done.\nStep 2 done.');
  });

  test('reads what an instance may send instead without throwing', () => {
    const text2 = (t: string) => ({ type: 'text', text: t });
    expect(durableOutputText({})).toBe('');
    expect(durableOutputText({ output: { messages: 'none' as never } })).toBe('');
    expect(durableOutputText({ output: { messages: [{ content: [{ type: 'image', url: 'x' }] }, null, { content: [text2('kept')] }] as never } })).toBe('kept');
  });
});
