/* global window, document, requestAnimationFrame, MutationObserver */
// The in-page half of bench/scale.bench.ts's list and Conversations figures, installed with
// page.addInitScript before the app loads (beside timeline-page.js and list-page.js). Plain
// browser JavaScript, like them. It acts as a user does (a date picked, a column header clicked,
// a sidebar link clicked) and says when, on the page's clock; the list's page answers are timed
// by list-page.js.
(() => {
  /** Resolves after the next frame has been painted (a message posted from its rAF callback). */
  const nextPaint = () =>
    new Promise((resolve) =>
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          channel.port1.close();
          resolve(performance.now());
        };
        channel.port2.postMessage(null);
      }),
    );

  /** Resolves when `selector` matches, checked after each change of the document. */
  const appeared = (selector, limitMs) =>
    new Promise((resolve, reject) => {
      if (document.querySelector(selector)) return resolve();
      const observer = new MutationObserver(() => {
        if (!document.querySelector(selector)) return;
        observer.disconnect();
        resolve();
      });
      observer.observe(document.body, { childList: true, subtree: true });
      setTimeout(() => {
        observer.disconnect();
        reject(new Error(`${selector} did not appear within ${limitMs} ms`));
      }, limitMs);
    });

  window.__earmarkScaleBench = {
    /** Picks the Recordings list's From date (yyyy-mm-dd); returns when. */
    setFromDate(value) {
      const input = document.querySelector(
        '[role="group"][aria-label="Filters"] input[type="date"]',
      );
      input.value = value;
      const at = performance.now();
      input.dispatchEvent(new Event('change', { bubbles: true }));
      return at;
    },

    /** Clicks the Recordings list's column header button named `name`; returns when. */
    clickSort(name) {
      const buttons = [...document.querySelectorAll('[role="columnheader"] button')];
      const button = buttons.find((b) => b.textContent.trim().startsWith(name));
      if (!button)
        throw new Error(
          `No column header "${name}" in ${JSON.stringify(buttons.map((b) => b.textContent))}; ${document.body.innerText.slice(0, 800)}`,
        );
      const at = performance.now();
      button.click();
      return at;
    },

    /** Clicks the sidebar's Conversations link; resolves with the time to its first row painted. */
    async openConversations(limitMs) {
      const at = performance.now();
      document.querySelector('a[href="#conversations"]').click();
      await appeared('[role="listbox"][aria-label="Conversations"] [role="option"]', limitMs);
      return (await nextPaint()) - at;
    },

    /**
     * Clicks the sidebar's Review link; resolves with the time to the screen's own mark of its
     * first items painted (`earmark:review-painted`, as bench/review.bench.ts times it).
     */
    async openReview(limitMs) {
      performance.clearMarks('earmark:review-painted');
      const at = performance.now();
      document.querySelector('a[href="#review"]').click();
      const until = at + limitMs;
      for (;;) {
        const [painted] = performance.getEntriesByName('earmark:review-painted');
        if (painted) return painted.startTime - at;
        if (performance.now() > until) throw new Error('Review did not paint its queue in time');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
})();
