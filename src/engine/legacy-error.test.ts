import { describe, expect, it } from 'vitest';
import { legacyFailureOf } from './legacy-error';

describe('legacyFailureOf', () => {
  it('reads a last message that is an error as the run’s failure, with the request id', () => {
    expect(legacyFailureOf('  Error: Spend Limit Exceeded: limit (spend_limit_exceeded)\n', 'req_9')).toEqual({
      title: 'the agent’s last message is an error',
      detail: 'Error: Spend Limit Exceeded: limit (spend_limit_exceeded)',
      requestId: 'req_9',
    });
    expect(legacyFailureOf('ERROR timeout')).toMatchObject({ detail: 'ERROR timeout' });
  });

  it('leaves an answer that merely starts with the word alone', () => {
    for (const text of ['', 'Errors are explained below.', 'Error-free, as promised.', 'The error: none.', 'Done.']) {
      expect(legacyFailureOf(text), text).toBeUndefined();
    }
  });
});
