import { adjacentConsult } from '../../../shared/timeline';
import type { HubTimelineStore } from './hub-timeline.svelte';

/** Zoom in or out by this much a key. */
const ZOOM_STEP = 1.5;

/**
 * The hub timeline's key map (its slider's keys, UI.md "The timeline"): ←/→ move a minute and
 * Page Up/Down an hour, with Shift extending the selection (the service then confirms it); Home
 * and End go to the day's edges; [ and ] pick the previous or next open consult; Enter creates a
 * conversation of the selection (not offline, not over another); Escape closes the shortcuts or
 * clears the selection; + and − zoom at the cursor; ? shows the shortcuts. True when the key is
 * the timeline's.
 */
export function timelineKey(
  hub: HubTimelineStore,
  key: string,
  { shift, offline }: { shift: boolean; offline: boolean },
): boolean {
  switch (key) {
    case 'ArrowLeft':
    case 'ArrowRight':
    case 'PageUp':
    case 'PageDown': {
      const minutes = key === 'ArrowLeft' || key === 'ArrowRight' ? 1 : 60;
      hub.step(key === 'ArrowLeft' || key === 'PageUp' ? -minutes : minutes, shift);
      if (shift) void hub.confirmPreview();
      return true;
    }
    case 'Home':
    case 'End':
      hub.jumpTo(key === 'Home' ? 'start' : 'end');
      return true;
    case '[':
    case ']': {
      const from =
        hub.cursorMs ?? hub.range?.startMs ?? (key === ']' ? hub.view.startMs - 1 : hub.view.endMs);
      const consult = adjacentConsult(hub.openConsults, from, key === ']' ? 1 : -1);
      if (consult) hub.selectConsult(consult);
      return true;
    }
    case 'Enter':
      if (hub.range && !hub.overlap && !offline) void hub.create();
      return true;
    case 'Escape':
      if (hub.shortcutsShown) hub.shortcutsShown = false;
      else hub.clear();
      return true;
    case '+':
    case '=':
    case '-':
      hub.zoom(
        key === '-' ? 1 / ZOOM_STEP : ZOOM_STEP,
        hub.cursorMs ?? (hub.view.startMs + hub.view.endMs) / 2,
      );
      return true;
    case '?':
      hub.shortcutsShown = !hub.shortcutsShown;
      return true;
    default:
      return false;
  }
}
