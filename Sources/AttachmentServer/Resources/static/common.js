// AttachmentStore web UI: what every page script shares (API access, building elements,
// sizes), loaded first and exposed as `window.Attach`. Plain JavaScript, no build step.
'use strict';

(() => {
  // ---- API access -------------------------------------------------------------------------
  // Credentials live in the server's HttpOnly session cookie, which the browser sends with every
  // same-origin request; this script never sees or stores a token. A 401 means the session is
  // missing or expired: go to the login page and come back here afterwards.
  const goToLogin = () => {
    const next = window.location.pathname + window.location.search;
    window.location.assign(`/login?next=${encodeURIComponent(next)}`);
  };
  const errorMessage = async (response) => {
    try {
      const body = await response.json();
      return body.error ? body.error.message : `HTTP ${response.status}`;
    } catch (_) {
      return `HTTP ${response.status}`;
    }
  };
  /**
   * fetch with the session cookie; a 401 leads to the login page. A failed answer throws an
   * Error with the server's message and the answer's `status` (a caller may treat 404, gone, as
   * nothing to do).
   */
  async function api(method, url, json, options = {}) {
    const response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: json === undefined ? {} : { 'Content-Type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
      ...options,
    });
    if (response.status === 401) goToLogin();
    if (!response.ok) throw Object.assign(new Error(await errorMessage(response)), { status: response.status });
    return response.status === 204 ? null : response.json();
  }

  /**
   * An HTML fragment the server renders (a page of tiles or of notes, the one place their markup
   * is made), parsed; `null` when the server answers 404. A session that ended (401, or the
   * login form answered in its place) goes to the login page, and the call throws.
   */
  async function fragment(url) {
    const response = await fetch(url, { credentials: 'same-origin' });
    if (response.status === 401 || (response.redirected && new URL(response.url).pathname === '/login')) {
      goToLogin();
      throw new Error('the session ended');
    }
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(await errorMessage(response));
    return new DOMParser().parseFromString(await response.text(), 'text/html');
  }

  const element = (tag, attributes = {}, children = []) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) {
      if (key === 'text') node.textContent = value;
      else if (key === 'dataset') Object.assign(node.dataset, value);
      else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child);
    return node;
  };
  const megabytes = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;

  // ---- Theme ------------------------------------------------------------------------------
  // Light or dark follows the system (the stylesheet's prefers-color-scheme) until the person
  // picks one with the toggle in the page's bar; the pick is kept in this browser and set as
  // data-theme on <html>, which the stylesheet's colours follow.
  const THEME_KEY = 'attach-theme';
  const storedTheme = () => {
    try { return window.localStorage.getItem(THEME_KEY); } catch (_) { return null; }
  };
  const systemTheme = () => (window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  const applyTheme = (theme) => {
    if (theme === 'dark' || theme === 'light') document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  };
  applyTheme(storedTheme());

  /** Adds the light/dark toggle to the page's bar. */
  function themeToggle() {
    const bar = document.querySelector('.bar');
    if (!bar) return;
    const button = element('button', { type: 'button', id: 'theme-toggle', class: 'theme-toggle' });
    const label = () => {
      const dark = (document.documentElement.dataset.theme || systemTheme()) === 'dark';
      button.textContent = dark ? 'Light' : 'Dark';
      button.setAttribute('aria-label', dark ? 'Use the light theme' : 'Use the dark theme');
    };
    button.addEventListener('click', () => {
      const next = (document.documentElement.dataset.theme || systemTheme()) === 'dark' ? 'light' : 'dark';
      applyTheme(next);
      try { window.localStorage.setItem(THEME_KEY, next); } catch (_) { /* private mode: this page only */ }
      label();
    });
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', label);
    label();
    bar.append(button);
  }

  window.Attach = Object.freeze({ goToLogin, errorMessage, api, fragment, element, megabytes, themeToggle });
})();
