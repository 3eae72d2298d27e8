/**
 * The web console's token in the page. `missive ui --web` prints its URL with the token in the fragment
 * (`#token=…`), which a browser sends to no server. The page takes it from there, keeps it in this tab's
 * sessionStorage (this origin's only: a reload keeps working, a page on another port cannot read it, closing the tab
 * forgets it), takes it out of the address bar, and the transport sends it as `Authorization: Bearer`. No cookie:
 * cookies ignore ports, so every local server would get one.
 */
const KEY = 'missive.console.token';

export function takeConsoleToken(win: Window = window): string | undefined {
  const fragment = new URLSearchParams(win.location.hash.replace(/^#/, ''));
  const offered = fragment.get('token');
  if (offered) {
    try {
      win.sessionStorage.setItem(KEY, offered);
    } catch {
      // Storage refused (a browser setting): the token lives in this page's memory only, and a reload loses it.
    }
    fragment.delete('token');
    const rest = fragment.toString();
    win.history.replaceState(win.history.state, '', `${win.location.pathname}${win.location.search}${rest ? `#${rest}` : ''}`);
    return offered;
  }
  try {
    return win.sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}
