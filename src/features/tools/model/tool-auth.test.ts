import { describe, expect, it } from 'vitest';
import { actionAuthText, approvalOutlook, consentResultOf, consentTarget, instanceOriginOf, returnUrlOf, searchWithoutConsentResult, serverAuthText } from './tool-auth';

describe('approvalOutlook: what the tools say before a run', () => {
  it('tells tools that may ask apart from those that only read, and says when nothing is known', () => {
    const submit = { tool_id: 'finance.submit', display_name: 'Submit', type: 'ACTION', write_action_type: 'EXECUTION' };
    expect(approvalOutlook([{ tool_id: 'r', display_name: 'Read', type: 'RETRIEVAL' }, submit])).toEqual({ kind: 'may', tools: [submit] });
    expect(approvalOutlook([{ tool_id: 'r', display_name: 'Read', type: 'RETRIEVAL' }])).toEqual({ kind: 'never' });
    expect(approvalOutlook([{ tool_id: 'l', display_name: 'Link', type: 'ACTION', write_action_type: 'REDIRECT' }])).toEqual({ kind: 'never' });
    expect(approvalOutlook([])).toEqual({ kind: 'no-tools' });
    expect(approvalOutlook(undefined)).toEqual({ kind: 'unknown', why: 'the instance did not list its tools' });
    expect(approvalOutlook('tools')).toEqual({ kind: 'unknown', why: 'the instance’s list of tools is not a list' });
    // What an instance sends that is not a tool is not counted as one.
    expect(approvalOutlook([null, { tool_id: 1 }, { display_name: 'x' }])).toEqual({ kind: 'no-tools' });
  });

  it('says the authorization each needs in words, an unknown kind as given', () => {
    expect(actionAuthText('OAUTH_USER')).toBe('your own sign-in (OAuth)');
    expect(actionAuthText('oauth_admin')).toBe('an administrator’s sign-in (OAuth)');
    expect(actionAuthText('NONE')).toBe('none');
    expect(actionAuthText(undefined)).toBe('not stated');
    expect(actionAuthText('SAML_X')).toBe('SAML_X');
    expect(serverAuthText('AUTH_USER_OAUTH')).toBe('OAuth: each user consents');
    expect(serverAuthText('AUTH_SSO')).toBe('authorization type AUTH_SSO');
    expect(serverAuthText(undefined)).toBe('authorization type not stated');
  });
});

describe('where the browser goes, and where it comes back', () => {
  it('comes back to this very page, without an earlier result, keeping the rest of its address', () => {
    expect(returnUrlOf('http://127.0.0.1:4831/runs/calendar-helper/thread/t_1?x=1&glean_tool_auth=error&serverId=s&error=access_denied#turn')).toBe(
      'http://127.0.0.1:4831/runs/calendar-helper/thread/t_1?x=1#turn',
    );
  });

  it('reads the result on return, and cleans it from the address', () => {
    expect(consentResultOf('?glean_tool_auth=success&serverId=srv_gcal_01')).toEqual({ allowed: true, serverId: 'srv_gcal_01' });
    expect(consentResultOf('?glean_tool_auth=error&serverId=srv_gcal_01&error=access_denied')).toEqual({ allowed: false, serverId: 'srv_gcal_01', error: 'access_denied' });
    expect(consentResultOf('?glean_tool_auth=something')).toEqual({ allowed: false });
    expect(consentResultOf('?x=1')).toBeUndefined();
    expect(searchWithoutConsentResult('?x=1&glean_tool_auth=success&serverId=s')).toBe('?x=1');
    expect(searchWithoutConsentResult('?glean_tool_auth=success')).toBe('');
  });

  it('opens only an http(s) consent page, a relative one on the instance, never on this console', () => {
    expect(consentTarget('https://acme-be.glean.com/oauth/start?state=1', 'http://127.0.0.1:5173')).toEqual({ ok: true, href: 'https://acme-be.glean.com/oauth/start?state=1' });
    const upstream = instanceOriginOf({ mode: 'proxy', target: 'http://127.0.0.1:4832' }, 'http://127.0.0.1:4831');
    expect(upstream).toBe('http://127.0.0.1:4832');
    expect(consentTarget('/sandbox/oauth/consent?state=st_1', upstream)).toEqual({ ok: true, href: 'http://127.0.0.1:4832/sandbox/oauth/consent?state=st_1' });
    expect(instanceOriginOf({ mode: 'same-origin', target: '' }, 'http://127.0.0.1:4831')).toBe('http://127.0.0.1:4831');
    expect(instanceOriginOf({ mode: 'direct', target: 'https://acme-be.glean.com/' }, 'http://x')).toBe('https://acme-be.glean.com');
    for (const bad of ['javascript:alert(1)', 'data:text/html,<script>1</script>', 'ftp://x/y']) {
      const target = consentTarget(bad, upstream);
      expect(target.ok, bad).toBe(false);
      expect(!target.ok && target.problem).toContain('is not a web link');
    }
    expect(consentTarget(undefined, upstream)).toEqual({ ok: false, problem: 'The instance answered no authorizationUrl: there is no consent page to open.' });
    expect(consentTarget('   ', upstream).ok).toBe(false);
  });
});
