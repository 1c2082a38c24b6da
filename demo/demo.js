// The demo's own page logic, shared by the script-tag page and the ESM page: the demo bar, the late list,
// the share button in a shadow root, the two routes, and the main action, tracked as a goal's event. The tour has no
// code here: its start rule (a click on the Tour button) starts it. `onboarding` is window.Onboarding or the ESM
// export.

const USERS = {
  ada: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
  grace: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
  alan: { firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com' },
};
const VIEW_KEY = 'lumen-demo-view';
const PROPERTIES_KEY = 'lumen-demo-properties';

const $ = (id) => document.getElementById(id);
const read = (key) => {
  try {
    return JSON.parse(localStorage.getItem(key) || '{}');
  } catch {
    return {};
  }
};
const write = (key, value) => localStorage.setItem(key, JSON.stringify(value));

/** A share button that lives in a shadow root: a tour step points into it with `lumen-share >>> button`. */
class LumenShare extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>
        button { display: inline-flex; align-items: center; gap: .4rem; height: 36px; padding: 0 .9rem; border-radius: 9px;
          border: 1px solid var(--border); background: var(--surface); color: var(--text); font: inherit; font-weight: 600; cursor: pointer; }
        @media (max-width: 760px) { span { display: none } }
      </style>
      <button type="button" aria-label="Share"><svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true"><path fill="currentColor" d="M14 2a3 3 0 1 1-2.8 4.1L7.9 8a3 3 0 0 1 0 4l3.3 1.9a3 3 0 1 1-.7 1.3L7.1 13.3a3 3 0 1 1 0-6.6l3.4-1.9A3 3 0 0 1 14 2z"/></svg><span>Share</span></button>`;
  }
}

const REPORTS = [
  ['Activation funnel', 'Edited 2 hours ago by Grace'],
  ['Weekly retention by plan', 'Viewed yesterday'],
  ['Revenue by country', 'Shared with you by Alan'],
];

/** Fills "Recently viewed" after `delay` ms, as a slow API would; the tour waits for it. */
function loadRecentReports(delay) {
  setTimeout(() => {
    const slot = $('recent-slot');
    if (!slot) return;
    const list = document.createElement('ul');
    list.className = 'reports';
    list.id = 'recent-reports';
    for (const [name, meta] of REPORTS) {
      const item = document.createElement('li');
      item.innerHTML = `<span class="report-icon">${name[0]}</span><span><span class="report-name"></span><br><span class="report-meta"></span></span>`;
      item.querySelector('.report-name').textContent = name;
      item.querySelector('.report-meta').textContent = meta;
      list.append(item);
    }
    slot.replaceChildren(list);
    slot.removeAttribute('aria-busy');
  }, delay);
}

/** Keeps every onboarding element, the auto-mounted ones included, on the page's theme. */
function followTheme() {
  const apply = (element) => element.setAttribute('theme', document.documentElement.dataset.theme);
  const all = () =>
    document.querySelectorAll(
      'onboarding-announcement, onboarding-banner, onboarding-card, onboarding-checklist, onboarding-form, onboarding-survey, onboarding-tour, onboarding-flow',
    );
  new MutationObserver((records) => {
    for (const record of records)
      for (const node of record.addedNodes) if (node.localName?.startsWith('onboarding-')) apply(node);
  }).observe(document.body, { childList: true, subtree: true });
  return () => all().forEach(apply);
}

export function setupDemo(onboarding, options = {}) {
  if (!customElements.get('lumen-share')) customElements.define('lumen-share', LumenShare);
  loadRecentReports(options.reportsDelay ?? Number(new URLSearchParams(location.search).get('reportsDelay') ?? 2000));
  const refreshTheme = followTheme();

  // ---- Light, dark, right-to-left ----
  const showView = () => {
    const view = read(VIEW_KEY);
    const theme = document.documentElement.dataset.theme;
    $('demo-light').setAttribute('aria-pressed', String(theme === 'light'));
    $('demo-dark').setAttribute('aria-pressed', String(theme === 'dark'));
    $('demo-rtl').setAttribute('aria-pressed', String(Boolean(view.rtl)));
    refreshTheme();
  };
  const setView = (change) => {
    const view = { ...read(VIEW_KEY), ...change };
    write(VIEW_KEY, view);
    if (view.theme) document.documentElement.dataset.theme = view.theme;
    document.documentElement.dir = view.rtl ? 'rtl' : 'ltr';
    showView();
  };
  $('demo-light').addEventListener('click', () => setView({ theme: 'light' }));
  $('demo-dark').addEventListener('click', () => setView({ theme: 'dark' }));
  $('demo-rtl').addEventListener('click', () => setView({ rtl: !read(VIEW_KEY).rtl }));
  showView();

  // ---- The flows' language: their own English, French, or Arabic (right to left) ----
  // The choice is remembered with the view and given to setLocale on every load; the flows redraw without a reload.
  const LANGUAGES = ['en', 'fr', 'ar'];
  const showLanguage = () => {
    const language = (onboarding.locale ?? 'en').split('-')[0];
    $('demo-language').value = LANGUAGES.includes(language) ? language : 'en';
  };
  const chosen = read(VIEW_KEY).locale;
  if (LANGUAGES.includes(chosen)) onboarding.setLocale(chosen);
  $('demo-language').addEventListener('change', (event) => {
    setView({ locale: event.target.value });
    onboarding.setLocale(event.target.value);
    showLanguage();
  });
  showLanguage();

  // ---- Who is here, and their properties (remembered by the demo so the controls show them) ----
  const properties = () => read(PROPERTIES_KEY)[onboarding.userId] ?? {};
  const showUser = () => {
    const id = onboarding.userId ?? '';
    const user = USERS[id];
    const who = $('demo-who');
    who.textContent = '';
    const name = document.createElement('b');
    name.textContent = user ? `${user.firstName} ${user.lastName}` : 'a guest';
    who.append('You are ', name, user ? '' : ` (${id.slice(0, 14)}…)`);
    $('avatar').textContent = user ? user.firstName[0] + user.lastName[0] : 'G';
    $('demo-logout').disabled = !user;
    const props = properties();
    $('demo-connected').checked = props.dataConnected === true;
    $('demo-plan').value = props.plan === 'pro' ? 'pro' : 'free';
    if (user) $('demo-user').value = id;
  };
  const setProperties = async (change) => {
    const all = read(PROPERTIES_KEY);
    all[onboarding.userId] = { ...all[onboarding.userId], ...change };
    write(PROPERTIES_KEY, all);
    showUser();
    await onboarding.identify(onboarding.userId, change);
  };

  $('demo-login').addEventListener('click', async () => {
    const id = $('demo-user').value;
    // The guest's progress carries over: identify links the guest to the user.
    await onboarding.identify(id, USERS[id]);
    showUser();
  });
  $('demo-logout').addEventListener('click', async () => {
    await onboarding.reset();
    showUser();
  });
  $('demo-connected').addEventListener('change', (event) => setProperties({ dataConnected: event.target.checked }));
  $('demo-plan').addEventListener('change', (event) => setProperties({ plan: event.target.value }));
  $('demo-reset').addEventListener('click', async () => {
    // The demo server deletes the named users and this visitor through the service's private API.
    await fetch('/demo/reset', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ userId: onboarding.userId }),
    });
    localStorage.removeItem(PROPERTIES_KEY);
    await onboarding.reset();
    location.reload();
  });
  $('demo-toggle').addEventListener('click', () => {
    const open = $('demo-bar').classList.toggle('open');
    $('demo-toggle').setAttribute('aria-expanded', String(open));
  });

  // ---- Two routes, / and /reports, drawn by this page: a single-page app's own navigation ----
  const route = () => {
    const reports = location.pathname === '/reports';
    // The ESM page has no such views: only the main page draws the two routes.
    $('view-dashboard')?.toggleAttribute('hidden', reports);
    $('view-reports')?.toggleAttribute('hidden', !reports);
    for (const link of document.querySelectorAll('a[data-route]')) {
      if (link.getAttribute('href') === location.pathname) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
  };
  document.addEventListener('click', (event) => {
    const link = event.target.closest?.('a[data-route]');
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    if (link.getAttribute('href') !== location.pathname) history.pushState(null, '', link.getAttribute('href'));
    route();
  });
  window.addEventListener('popstate', route);
  route();

  // The app's main action. Tracking it is what makes it a goal: experiments.yaml's welcome-copy experiment and the
  // product tour's goal both count users who record dashboard.created.
  $('new-dashboard')?.addEventListener('click', () => void onboarding.track('dashboard.created'));

  // Buttons in flows link to #connect, #upgrade and #tour: the page does what they say. The tour's start rule
  // takes a click on the #tour link itself, so here it only leaves the address.
  const onHash = () => {
    const action = {
      '#connect': () => setProperties({ dataConnected: true }),
      '#upgrade': () => setProperties({ plan: 'pro' }),
      '#tour': () => {},
    }[location.hash];
    if (!action) return;
    history.replaceState(null, '', location.pathname + location.search);
    void action();
  };
  window.addEventListener('hashchange', onHash);
  onHash();

  // The custom flow's own data (its steps' props) is the page's to draw. The element may have drawn its first
  // step before this module ran, so read it now too, and on the next frame (the template is stamped after the event).
  const showNews = (element) =>
    requestAnimationFrame(() => {
      const date = element.currentStep?.props?.date;
      const slot = element.querySelector('.news-date');
      if (slot) slot.textContent = typeof date === 'string' ? `· ${date}` : '';
    });
  document.addEventListener('onboarding-step-change', (event) => {
    if (event.target.localName === 'onboarding-flow') showNews(event.target);
  });
  document.querySelectorAll('onboarding-flow').forEach(showNews);

  onboarding.ready.then(showUser);
  showUser();
}
