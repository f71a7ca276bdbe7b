import type { ReactNode } from 'react';

/**
 * A URL an instance sent, as a web address: only an absolute http: or https: URL. Anything
 * else (javascript:, data:, ftp:, a relative path that would resolve against this console) is
 * not something the console opens for the reader.
 */
export function webUrlOf(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A link an instance's answer provides (a problem's `documentation_url`, a failed run's):
 * opened in a new tab, with no referrer, when it is a web address, its host said beside it
 * (the instance chose it, so the reader sees where it leads before following it); otherwise
 * shown as text and said not to be one, so a reader sees what was sent without being sent anywhere.
 */
export function InstanceLink({ href, children }: { href: string; children: ReactNode }) {
  const url = webUrlOf(href);
  if (url)
    return (
      <>
        <a href={url.href} target="_blank" rel="noreferrer noopener">
          {children}
        </a>{' '}
        <span className="muted">({url.host})</span>
      </>
    );
  return (
    <span>
      {children}: <code>{href}</code> <span className="muted">(not a web link: only http and https addresses are opened from here)</span>
    </span>
  );
}
