/**
 * Test support: the page's real requests, with a slow network or a broken instance put in
 * their way. Every request still goes to the real reference service; a rule may hold its
 * answer back, look at what was sent, or stand in for an instance that answers wrongly.
 * Only tests import this.
 */

export interface SentRequest {
  url: string;
  method: string;
  authorization?: string;
}

export interface Rule {
  /** Which requests: a test on the URL and method. */
  match(url: string, method: string): boolean;
  /** Holds the answer back this long (the request has already reached the service). */
  delayMs?: number;
  /** Called once the real answer arrived; may return another answer in its place. */
  answer?(response: Response): Response | void | Promise<Response | void>;
}

export function slowNetwork(...rules: Rule[]): { sent: SentRequest[]; restore(): void } {
  const real = window.fetch;
  const sent: SentRequest[] = [];
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    sent.push({ url, method, ...(headers.has('authorization') && { authorization: headers.get('authorization')! }) });
    const rule = rules.find((r) => r.match(url, method));
    const response = await real(input, init);
    if (!rule) return response;
    if (rule.delayMs) await new Promise((r) => setTimeout(r, rule.delayMs));
    return (await rule.answer?.(response)) ?? response;
  };
  return { sent, restore: () => void (window.fetch = real) };
}
