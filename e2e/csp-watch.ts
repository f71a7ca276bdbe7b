import type { Page } from '@playwright/test';

const ABOUT_POLICY = /Content Security Policy|unsafe-eval|unsafe-inline|EvalError|Refused to (execute|evaluate|load|apply)/i;

/**
 * Every breach of the page's Content-Security-Policy from now on, as it happens and across
 * navigations: the page's securitypolicyviolation events, and the console errors and page
 * errors the browser logs for a blocked script, eval or style. Call before the first goto.
 */
export async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction('__reportCspViolation', (v: string) => violations.push(v));
  // Before any of the page's own scripts: a violation during start-up counts too.
  // A string, not a function: the e2e sources are type-checked without the DOM library.
  await page.addInitScript(`
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__reportCspViolation(location.pathname + ': ' + e.violatedDirective + ' blocked ' + (e.blockedURI || '(inline)') + ' at ' + e.sourceFile + ':' + e.lineNumber);
    });
  `);
  page.on('console', (m) => {
    if (m.type() === 'error' && ABOUT_POLICY.test(m.text())) violations.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => {
    if (ABOUT_POLICY.test(`${e.name}: ${e.message}`)) violations.push(`page error: ${e.name}: ${e.message}`);
  });
  return violations;
}

/** Lets violations still queued in the page arrive (each is reported in a task of its own). */
export async function settle(page: Page): Promise<void> {
  await page.evaluate('new Promise((resolve) => setTimeout(resolve, 100))').catch(() => undefined);
}
