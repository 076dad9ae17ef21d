// The calendar's embed snippet. On the page that shows the calendar:
//   <div data-calendar-embed data-view="month" data-categories="music"></div>
//   <script src="https://calendar.example/events/embed.js" async></script>
// Each such element gets an iframe of /events/embed with its data-* filters (view, categories, tags, venue,
// organizer, featured, past, filter-bar, date), sized to its content from the heights the frame posts.
(() => {
  const script = document.currentScript;
  if (!script) return;
  const origin = new URL(script.src).origin;
  const NAMES = {
    view: 'view',
    categories: 'categories',
    tags: 'tags',
    venue: 'venue',
    organizer: 'organizer',
    featured: 'featured',
    past: 'past',
    filterBar: 'filter_bar',
    date: 'date',
  };
  const frames = new Map();

  function embed(host) {
    if (host.dataset.calendarEmbedReady) return;
    host.dataset.calendarEmbedReady = '1';
    const url = new URL('/events/embed', origin);
    for (const [key, name] of Object.entries(NAMES)) {
      const value = host.dataset[key];
      if (value) url.searchParams.set(name, value);
    }
    const frame = document.createElement('iframe');
    frame.src = url.href;
    frame.title = host.dataset.title || 'Events calendar';
    frame.loading = 'lazy';
    frame.style.width = '100%';
    frame.style.border = '0';
    frame.style.height = '40rem';
    host.replaceChildren(frame);
    frames.set(frame.contentWindow, frame);
  }

  window.addEventListener('message', (event) => {
    if (event.origin !== origin || !event.data || event.data.type !== 'calendar-embed:height') return;
    const frame = frames.get(event.source);
    const height = Number(event.data.height);
    if (frame && Number.isFinite(height) && height > 0 && height < 100000) frame.style.height = `${height}px`;
  });

  const hosts = document.querySelectorAll('[data-calendar-embed]');
  if (hosts.length === 0) {
    const host = document.createElement('div');
    host.dataset.calendarEmbed = '';
    for (const key of Object.keys(NAMES)) if (script.dataset[key]) host.dataset[key] = script.dataset[key];
    script.after(host);
    embed(host);
  } else {
    for (const host of hosts) embed(host);
  }
})();
