/**
 * Chromium's first media element of a page is slow to start (issue 31, "The first open of the
 * day"): it loads its demuxer and decoder and opens the audio output then, which took the first
 * recording of the day about 90 ms more, from its address to its time advancing, than the next.
 * A silent, muted, detached element played once while the app is idle after its first paint
 * pays that before the user clicks a recording. It never makes a sound (muted, volume 0, zeros)
 * and, muted, takes no audio focus: no media session, the media keys stay with whatever had them.
 */
import { silentWav } from '../../../shared/wav';

/** How long the silence lasts: a few of the media's time updates. */
const SILENCE_MS = 100;

/** Runs the media pipeline once, silently, when the page is idle after its first paint. */
export function warmUpMedia(): void {
  // Whenever the page is idle, within a second, once the first paint is on record.
  afterFirstPaint(() => requestIdleCallback(() => void run(), { timeout: 1_000 }));
}

/**
 * Calls `then` once the browser has recorded the page's first paint. A frame callback is not
 * enough: the paint is recorded when the compositor presents the frame, which on a loaded
 * machine (software compositing) came after a frame callback and an idle second.
 */
function afterFirstPaint(then: () => void): void {
  new PerformanceObserver((entries, observer) => {
    if (entries.getEntriesByName('first-paint').length === 0) return;
    observer.disconnect();
    then();
  }).observe({ type: 'paint', buffered: true });
}

async function run(): Promise<void> {
  // A video element: muted, it may play without a gesture (an audio element may not, and then
  // the audio output would open only with the first recording).
  const media = document.createElement('video');
  media.muted = true;
  media.volume = 0;
  media.preload = 'auto';
  const url = URL.createObjectURL(new Blob([silentWav(SILENCE_MS)], { type: 'audio/wav' }));
  const settled = (events: string[], until: () => boolean = () => true) =>
    new Promise<void>((resolve) => {
      const settle = () => until() && resolve();
      for (const event of [...events, 'error']) media.addEventListener(event, settle);
    });
  try {
    const loaded = settled(['loadeddata']);
    media.src = url;
    await loaded; // the demuxer and the decoder are loaded
    const advanced = settled(['timeupdate', 'ended'], () => media.currentTime > 0 || media.ended);
    // The audio output opens. Refused (a page that forbids it), what loading warmed stays warm.
    await media.play().then(
      () => advanced,
      () => undefined,
    );
  } finally {
    media.pause();
    media.removeAttribute('src');
    media.load(); // lets go of the media
    URL.revokeObjectURL(url);
  }
}
