import type { ConversationStatus } from '../../../shared/api';
import { MINUTE_MS } from '../../../shared/api/values';
import type { Slot } from '../../../shared/timeline';

export interface TimelineColors {
  speech: string;
  silence: string;
  noData: string;
  hour: string;
}

export interface TimelineView {
  startMs: number;
  endMs: number;
}

/** A conversation drawn above the bars, coloured by its status. */
export interface Band {
  id: string;
  startMs: number;
  endMs: number;
  status: ConversationStatus | 'UNKNOWN';
  /** Created in this app (outlined apart from the hub's own and other users'). */
  mine: boolean;
}

const BASELINE_PX = 2;

/** Reads the colour tokens from CSS, so the canvas follows the light or dark theme. */
export function timelineColors(element: Element): TimelineColors {
  const style = getComputedStyle(element);
  const token = (name: string) => style.getPropertyValue(name).trim();
  return {
    speech: token('--color-speech'),
    silence: token('--color-silence'),
    noData: token('--color-no-data'),
    hour: token('--color-border'),
  };
}

/**
 * Draws one bar per minute of the view: speech as a bar as tall as its speech seconds, silence
 * as a faint baseline, no data as hatching. Positions come from arithmetic on the view, never
 * from the DOM. `height` and `width` are in device pixels.
 */
export function drawTimeline(
  context: CanvasRenderingContext2D,
  slots: readonly Slot[],
  view: TimelineView,
  width: number,
  height: number,
  colors: TimelineColors,
  hourMarks: readonly number[],
): void {
  context.clearRect(0, 0, width, height);
  const pxPerMs = width / (view.endMs - view.startMs);
  const barWidth = Math.max(1, MINUTE_MS * pxPerMs - (MINUTE_MS * pxPerMs > 3 ? 1 : 0));
  const first = Math.max(
    0,
    Math.floor((view.startMs - (slots[0]?.minuteStartMs ?? view.startMs)) / MINUTE_MS),
  );
  const baseline = height - BASELINE_PX;

  context.fillStyle = colors.hour;
  for (const mark of hourMarks) {
    if (mark >= view.startMs && mark <= view.endMs)
      context.fillRect(Math.round((mark - view.startMs) * pxPerMs), 0, 1, height);
  }

  // One path per state: three fills instead of 1,440.
  context.beginPath();
  for (let i = first; i < slots.length; i++) {
    const slot = slots[i]!;
    if (slot.minuteStartMs >= view.endMs) break;
    if (slot.state !== 'no-data') continue;
    context.rect((slot.minuteStartMs - view.startMs) * pxPerMs, 0, barWidth, height);
  }
  context.fillStyle = colors.noData;
  context.fill();

  context.beginPath();
  for (let i = first; i < slots.length; i++) {
    const slot = slots[i]!;
    if (slot.minuteStartMs >= view.endMs) break;
    if (slot.state === 'silence')
      context.rect((slot.minuteStartMs - view.startMs) * pxPerMs, baseline, barWidth, BASELINE_PX);
  }
  context.fillStyle = colors.silence;
  context.fill();

  context.beginPath();
  for (let i = first; i < slots.length; i++) {
    const slot = slots[i]!;
    if (slot.minuteStartMs >= view.endMs) break;
    if (slot.state !== 'speech') continue;
    const barHeight = Math.max(BASELINE_PX * 2, (slot.speechMs / MINUTE_MS) * height);
    context.rect(
      (slot.minuteStartMs - view.startMs) * pxPerMs,
      height - barHeight,
      barWidth,
      barHeight,
    );
  }
  context.fillStyle = colors.speech;
  context.fill();
}
