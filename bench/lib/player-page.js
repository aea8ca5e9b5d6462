/* global window, location, requestAnimationFrame */
// The in-page half of bench/player.bench.ts, installed with page.addInitScript before the page
// loads: in the app, and in the baseline page (wavesurfer's default path). Plain browser
// JavaScript, like timeline-page.js (bench/ is type-checked for Node, without the DOM).
//
// It only listens: for each `earmark:waveform-drawn` mark (AudioPlayer.svelte, or the baseline
// page, when wavesurfer's first 'redrawcomplete' comes) it notes when the next frame has been
// produced: a message posted from that frame's rAF callback arrives after its paint and commit.
// Times are the page's clock: from the navigation that loaded it.
(() => {
  const draws = [];

  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.name !== 'earmark:waveform-drawn') continue;
      const draw = { drawnAt: entry.startTime, shownAt: null, detail: entry.detail ?? null };
      draws.push(draw);
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          draw.shownAt = performance.now();
          channel.port1.close();
        };
        channel.port2.postMessage(null);
      });
    }
  }).observe({ type: 'mark', buffered: true });

  window.__earmarkPlayerBench = {
    /** The waveforms drawn since `from` (an index), with when each was on screen. */
    draws: (from = 0) => draws.slice(from),
    drawCount: () => draws.length,
    /** When the page's HTML had arrived and its scripts had run (Navigation Timing). */
    navigation() {
      const [entry] = performance.getEntriesByType('navigation');
      return { responseEnd: entry.responseEnd, scriptsRan: entry.domContentLoadedEventEnd };
    },
    /** Opens a screen by its address's hash, as a link in the app does; returns when. */
    open(hash) {
      const openedAt = performance.now();
      location.hash = hash;
      return openedAt;
    },
  };
})();
