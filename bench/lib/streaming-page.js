/* global window, location, document, HTMLMediaElement */
// The in-page half of bench/streaming.bench.ts, installed with page.addInitScript before the page
// loads. Plain browser JavaScript (bench/ is type-checked for Node, without the DOM). It watches
// the media element the player plays (whichever it is: wavesurfer makes its own) and acts as a
// user at once, so the figures hold no test-driver latency. Times are the page's clock.
(() => {
  let media = null;
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (...args) {
    // The element the player plays, whichever it is.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    media = this;
    return play.apply(this, args);
  };
  const poll = (check) =>
    new Promise((resolve) => {
      const tick = () => {
        const found = check();
        if (found !== undefined) resolve(found);
        else setTimeout(tick, 2);
      };
      tick();
    });

  /** Recordings' row `index`: its first cell, which opens the recording; null until listed. */
  const rowCell = (index) =>
    document.querySelector(`[role="row"][data-index="${index}"] [role="gridcell"]:not(.check)`);

  window.__earmarkStreamBench = {
    /** Opens a screen by its address's hash, as a link in the app does; returns when. */
    open(hash) {
      media = null;
      const openedAt = performance.now();
      location.hash = hash;
      return openedAt;
    },
    /**
     * Clicks Recordings' row `index` (its first cell, as a user opens a recording) as soon as
     * the row is listed; resolves with when (the page's clock, and the epoch's: when it was
     * listed), and the address it opened.
     */
    clickRowWhenListed(index) {
      return poll(() => {
        const cell = rowCell(index);
        if (!cell) return undefined;
        media = null;
        const clickedAt = performance.now();
        cell.click();
        return { clickedAt, listedAt: Date.now(), hash: location.hash };
      });
    },
    /** Resolves, without clicking, once Recordings' row `index` is listed; with when. */
    whenListed(index) {
      return poll(() => (rowCell(index) ? performance.now() : undefined));
    },
    /** Presses the player's Play button as soon as it is there; resolves with when. */
    pressPlayWhenShown() {
      return poll(() => {
        const button = document.querySelector(
          'section[aria-label="Audio"] button[aria-label="Play"]',
        );
        if (!button || button.disabled) return undefined;
        const pressedAt = performance.now();
        button.click();
        return pressedAt;
      });
    },
    /** Resolves with when the media, playing, first showed a time past `seconds`. */
    playingPast(seconds) {
      return poll(() =>
        media && !media.paused && media.currentTime > seconds ? performance.now() : undefined,
      );
    },
    /** Seeks the media as the waveform does when clicked; returns when. */
    seek(seconds) {
      const at = performance.now();
      media.currentTime = seconds;
      return at;
    },
    pause() {
      media?.pause();
    },
    /** What the player and its media are doing: said when a step does not finish. */
    state() {
      const player = document.querySelector('section[aria-label="Audio"]');
      return {
        player: player?.textContent?.replace(/\s+/g, ' ').trim().slice(0, 200) ?? null,
        media: media && {
          src: media.currentSrc,
          currentTime: media.currentTime,
          paused: media.paused,
          readyState: media.readyState,
          networkState: media.networkState,
          error: media.error?.message ?? null,
        },
      };
    },
  };
})();
