// The calendar pages' progressive enhancement. Every control works without it: links and a GET form. With it,
// times can be shown in the visitor's own zone, and views change in place (fetching the same HTML pages).
(() => {
  const KEY = 'calendar:local-times';
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const time = new Intl.DateTimeFormat('en-US', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: zone });
  const date = new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', timeZone: zone });
  const dayKey = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: zone });
  const zoneName = (d) =>
    new Intl.DateTimeFormat('en-US', { timeZoneName: 'short', timeZone: zone }).formatToParts(d).find((p) => p.type === 'timeZoneName')?.value ??
    zone;

  function remembered() {
    try {
      return localStorage.getItem(KEY) === '1';
    } catch {
      return false;
    }
  }
  function remember(on) {
    try {
      localStorage.setItem(KEY, on ? '1' : '0');
    } catch {
      // storage refused (a sandboxed frame): the choice lasts for this page only
    }
  }

  let local = remembered();

  function localText(el) {
    const start = new Date(el.getAttribute('datetime'));
    if (el.dataset.localTime === 'time') return time.format(start);
    const end = new Date(el.dataset.end);
    const sameDay = dayKey.format(start) === dayKey.format(end);
    return `${date.format(start)} @ ${time.format(start)} – ${sameDay ? '' : `${date.format(end)} @ `}${time.format(end)} ${zoneName(start)}`;
  }

  function applyZone(root) {
    for (const el of root.querySelectorAll('time[data-local-time]')) {
      if (el.dataset.eventText === undefined) el.dataset.eventText = el.textContent;
      el.textContent = local ? localText(el) : el.dataset.eventText;
    }
    for (const button of document.querySelectorAll('[data-zone-toggle]')) {
      button.hidden = false;
      button.setAttribute('aria-pressed', String(local));
      button.textContent = local ? `Times in your zone (${zone}): show event times` : 'Show times in my time zone';
    }
  }

  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-zone-toggle]') : null;
    if (button) {
      local = !local;
      remember(local);
      applyZone(document);
      return;
    }
    const link = event.target instanceof Element ? event.target.closest('a[data-view-link]') : null;
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin) return;
    event.preventDefault();
    navigate(url.href, true);
  });

  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.matches('[data-filter-form]')) return;
    event.preventDefault();
    const url = new URL(form.action, location.href);
    for (const [name, value] of new FormData(form)) if (typeof value === 'string' && value.trim() !== '') url.searchParams.append(name, value.trim());
    navigate(url.href, true);
  });

  window.addEventListener('popstate', () => navigate(location.href, false));

  let pending;
  async function navigate(href, push) {
    const main = document.querySelector('main[data-calendar]');
    if (!main) return void location.assign(href);
    pending?.abort();
    const controller = new AbortController();
    pending = controller;
    main.setAttribute('aria-busy', 'true');
    try {
      const res = await fetch(href, { headers: { Accept: 'text/html' }, signal: controller.signal, credentials: 'same-origin' });
      const html = await res.text();
      const doc = new DOMParser().parseFromString(html, 'text/html');
      const next = doc.querySelector('main[data-calendar]');
      if (!next) return void location.assign(href);
      main.replaceChildren(...next.childNodes);
      document.title = doc.title;
      if (push) history.pushState({}, '', href);
      applyZone(main);
      const heading = main.querySelector('h1');
      if (heading) {
        heading.tabIndex = -1;
        heading.focus({ preventScroll: false });
      }
    } catch (error) {
      if (error?.name !== 'AbortError') location.assign(href);
    } finally {
      if (pending === controller) main.removeAttribute('aria-busy');
    }
  }

  applyZone(document);
})();
