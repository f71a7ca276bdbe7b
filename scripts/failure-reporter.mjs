// A Vitest reporter that keeps each failed test's error with its diff (the JSON reporter keeps
// the message only, which for toMatchObject is "expected { … } to match object { … }").
// scripts/test.mjs prints these at the end of `npm test`, where a CI log's tail keeps them.
// VITEST_FAILURES_FILE names another file, for a second Vitest run at the same time (Node 24's).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export default class FailureReporter {
  constructor() {
    this.file = process.env.VITEST_FAILURES_FILE || '.reports/vitest-failures.json';
    this.failed = [];
  }

  onTestCaseResult(testCase) {
    const result = testCase.result();
    if (result.state !== 'failed') return;
    // Named as the JSON reporter names it (titles joined by a space), to be found by that name.
    const titles = [testCase.name];
    for (let p = testCase.parent; p && p.type === 'suite'; p = p.parent) titles.unshift(p.name);
    this.failed.push({
      name: titles.join(' '),
      errors: (result.errors ?? []).map((e) => ({ message: String(e.message ?? ''), diff: e.diff ? String(e.diff) : undefined, stack: String(e.stack ?? '') })),
    });
  }

  onTestRunEnd() {
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, JSON.stringify(this.failed));
  }
}
