/* global window, document, requestAnimationFrame, Element, addEventListener */
// The in-page half of bench/list.bench.ts, installed with page.addInitScript before the app loads
// (after bench/lib/timeline-page.js, whose frame recorder it uses: the same frame-time method).
// Plain browser JavaScript, like timeline-page.js.
//
// It only listens to the app: when a click on the sidebar's Recordings link happens (the start of
// "navigation to the list"), and, for each `earmark:recordings-page` measure (one per page answer
// the list stores, with detail { page, asked, source }), when the next frame has been produced (a
// message posted from that frame's rAF callback arrives after its paint and commit). It also
// builds the scrolling baseline: a plain table holding every row at once.
(() => {
  const pages = [];
  let clickedAt = null;

  addEventListener(
    'click',
    (event) => {
      if (event.target instanceof Element && event.target.closest('a[href="#recordings"]'))
        clickedAt = performance.now();
    },
    true,
  );

  const measure = performance.measure.bind(performance);
  performance.measure = (...args) => {
    const entry = measure(...args);
    if (args[0] === 'earmark:recordings-page' && entry) {
      const answer = {
        ...(entry.detail ?? {}),
        startTime: entry.startTime,
        endTime: entry.startTime + entry.duration,
        paintedAt: null,
      };
      pages.push(answer);
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          answer.paintedAt = performance.now();
          channel.port1.close();
        };
        channel.port2.postMessage(null);
      });
    }
    return entry;
  };

  let table = null;

  window.__earmarkListBench = {
    clickedAt: () => clickedAt,
    pageCount: () => pages.length,
    pages: (from = 0) => pages.slice(from),

    /**
     * The baseline: every row in one plain table (no virtualization), in a scroller laid over
     * the app's list at the same place and size, rows as tall as the app's, text set as text.
     * Returns how long building and the first layout took.
     */
    showTable(rows, rect, rowHeight) {
      const started = performance.now();
      const scroller = document.createElement('div');
      Object.assign(scroller.style, {
        position: 'fixed',
        left: `${rect.x}px`,
        top: `${rect.y}px`,
        width: `${rect.width}px`,
        height: `${rect.height}px`,
        overflowY: 'auto',
        background: 'var(--color-surface)',
        zIndex: '1000',
      });
      const element = document.createElement('table');
      element.style.width = '100%';
      element.style.borderCollapse = 'collapse';
      const body = document.createElement('tbody');
      for (const row of rows) {
        const tr = document.createElement('tr');
        tr.style.height = `${rowHeight}px`;
        tr.style.borderBottom = '1px solid var(--color-border)';
        const check = document.createElement('td');
        const box = document.createElement('input');
        box.type = 'checkbox';
        check.append(box);
        tr.append(check);
        for (const text of row) {
          const td = document.createElement('td');
          td.textContent = text;
          tr.append(td);
        }
        body.append(tr);
      }
      element.append(body);
      scroller.append(element);
      document.body.append(scroller);
      void scroller.offsetHeight; // the first layout, inside the timing
      table = scroller;
      return performance.now() - started;
    },

    removeTable() {
      table?.remove();
      table = null;
    },
  };
})();
