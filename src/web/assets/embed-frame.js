// Inside the embed: tells the page that frames it how tall the calendar is, whenever that changes, so that
// embed.js can size the iframe to its content.
(() => {
  if (window.parent === window) return;
  let last = 0;
  const send = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'calendar-embed:height', height }, '*');
  };
  new ResizeObserver(send).observe(document.documentElement);
  window.addEventListener('load', send);
  send();
})();
