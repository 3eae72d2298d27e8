/**
 * The web console's request rules, one by one, including what the integration tests cannot bind: the Host names of
 * a console on a non-loopback or unspecified address. Also the CSP derivation, the static path rule and the
 * browser command of `--open`.
 */
import { describe, expect, it } from 'vitest';
import { allowedHosts, checkSource, checkToken, newToken, presentedToken, tokenMatches } from '../../electron/core/web-console/guard.js';
import { redirectPage } from '../../electron/core/web-console/redirect-file.js';
import { consolePolicy, resolveInside, withConnectSelf } from '../../electron/core/web-console/static-files.js';
import { browserCommand } from '../../electron/cli/ui-web.js';

describe('web console guard', () => {
  it('answers to its loopback names on its own port only', () => {
    const hosts = allowedHosts('127.0.0.1', 4321);
    expect([...hosts].sort()).toEqual(['127.0.0.1:4321', '[::1]:4321', 'localhost:4321']);
    expect(checkSource({ host: 'localhost:4321' }, { hosts }, true)).toBeNull();
    expect(checkSource({ host: 'LOCALHOST:4321' }, { hosts }, true)).toBeNull();
    for (const host of ['evil.example:4321', '127.0.0.1:4322', '127.0.0.1', undefined])
      expect(checkSource({ host }, { hosts }, false)?.status, String(host)).toBe(403);
  });

  it('answers to the explicit host alone, and to every interface of an unspecified address', () => {
    expect([...allowedHosts('192.0.2.7', 8080)]).toEqual(['192.0.2.7:8080']);
    expect([...allowedHosts('2001:db8::7', 8080)]).toEqual(['[2001:db8::7]:8080']);
    const everywhere = allowedHosts('0.0.0.0', 8080, { addresses: ['127.0.0.1', '192.0.2.7', 'fe80::1'], hostname: 'Workstation' });
    expect([...everywhere].sort()).toEqual(['127.0.0.1:8080', '192.0.2.7:8080', '[::1]:8080', '[fe80::1]:8080', 'localhost:8080', 'workstation:8080']);
    expect(everywhere.has('0.0.0.0:8080')).toBe(false);
  });

  it('refuses any Origin but its own, and cross-origin fetch metadata on the API', () => {
    const hosts = allowedHosts('127.0.0.1', 4321);
    const ok = { host: '127.0.0.1:4321' };
    expect(checkSource({ ...ok, origin: 'http://127.0.0.1:4321' }, { hosts }, true)).toBeNull();
    for (const origin of ['http://localhost:4321', 'http://127.0.0.1:4322', 'https://127.0.0.1:4321', 'null', 'http://evil.example'])
      expect(checkSource({ ...ok, origin }, { hosts }, true)?.status, origin).toBe(403);
    expect(checkSource({ ...ok, 'sec-fetch-site': 'same-origin' }, { hosts }, true)).toBeNull();
    expect(checkSource({ ...ok, 'sec-fetch-site': 'same-site' }, { hosts }, true)?.status).toBe(403);
    expect(checkSource({ ...ok, 'sec-fetch-site': 'cross-site' }, { hosts }, true)?.status).toBe(403);
    // A link followed from elsewhere may open the page (it still needs the token), not call the API.
    expect(checkSource({ ...ok, 'sec-fetch-site': 'cross-site' }, { hosts }, false)).toBeNull();
  });

  it('takes the token from a Bearer header only, compared whole: never from a cookie', () => {
    const token = newToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(token);
    const policy = { token };
    expect(checkToken({ authorization: `Bearer ${token}` }, policy)).toBeNull();
    // Cookies ignore ports: one of any name is no proof of anything, and a tossed one changes nothing.
    expect(checkToken({ cookie: `other=1; missive_console_4321=${token}` }, policy)?.status).toBe(401);
    expect(checkToken({ authorization: `Bearer ${token}`, cookie: `missive_console_4321=tossed` }, policy)).toBeNull();
    expect(checkToken({ authorization: `Bearer ${token.slice(0, -1)}` }, policy)?.status).toBe(401);
    expect(checkToken({ authorization: `Bearer ${token}x` }, policy)?.status).toBe(401);
    expect(checkToken({}, policy)).toMatchObject({ status: 401, reason: expect.stringContaining('missing') });
    expect(presentedToken({ authorization: 'Basic abc' })).toBeUndefined();
    expect(tokenMatches(undefined, token)).toBe(false);
    expect(tokenMatches('', token)).toBe(false);
  });
});

describe('web console files', () => {
  const page = "default-src 'self'; script-src 'self'; connect-src 'none'; object-src 'none'";

  it("keeps the app's policy, with connect-src 'self' and frame-ancestors 'none'", () => {
    expect(withConnectSelf(page)).toBe("default-src 'self'; script-src 'self'; object-src 'none'; connect-src 'self'");
    expect(consolePolicy(page)).toBe("default-src 'self'; script-src 'self'; object-src 'none'; connect-src 'self'; frame-ancestors 'none'");
    expect(consolePolicy("default-src 'self'; frame-ancestors *")).toBe("default-src 'self'; connect-src 'self'; frame-ancestors 'none'");
  });

  it('resolves only paths inside the renderer directory', () => {
    expect(resolveInside('/srv/r', '/assets/app.js')).toBe('/srv/r/assets/app.js');
    for (const path of ['/../x', '/a/../../x', '/%2e%2e/x', '/a/%2e%2e%2f%2e%2e%2fx', '/..%5cx', '/a%00b', '/%E0%A4%A', 'relative', '/./x'])
      expect(resolveInside('/srv/r', path), path).toBeNull();
  });
});

describe('--open', () => {
  const url = 'file:///tmp/missive-console-x/open.html';

  it("honours $BROWSER (its first entry, %s for the URL), else the platform's opener", () => {
    expect(browserCommand(url, { BROWSER: 'firefox' })).toEqual({ command: 'firefox', args: [url] });
    expect(browserCommand(url, { BROWSER: 'chromium --new-window %s:lynx' })).toEqual({ command: 'chromium', args: ['--new-window', url] });
    expect(browserCommand(url, {}, 'linux')).toEqual({ command: 'xdg-open', args: [url] });
    expect(browserCommand(url, {}, 'darwin')).toEqual({ command: 'open', args: [url] });
    expect(browserCommand(url, {}, 'win32')).toEqual({ command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] });
  });

  it('redirects to the console URL from a page that needs nothing but itself', () => {
    const page = redirectPage('http://127.0.0.1:4321/#token=abc');
    expect(page).toContain('<meta http-equiv="refresh" content="0;url=http://127.0.0.1:4321/#token=abc">');
    expect(page).toContain('<script>location.replace("http://127.0.0.1:4321/#token=abc");</script>');
    // Nothing in the target can end the attribute or the script early.
    const hostile = redirectPage('http://x/#"></script><b>');
    expect(hostile).not.toContain('"></script><b>');
    expect(hostile).toContain('&#34;&#62;&#60;/script&#62;&#60;b&#62;');
    expect(hostile).toContain('location.replace("http://x/#\\">\\u003c/script>\\u003cb>");');
  });
});
