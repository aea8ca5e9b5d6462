import type {
  Conversation,
  ConversationStatus,
  Device,
  Preview,
  TimelineMinute,
} from '../../../shared/api';
import type { CreatedRange, IpcError } from '../../../shared/ipc';
import {
  addDays,
  dayRange,
  extendSelection,
  localDate,
  minuteSlots,
  moveMinute,
  panView,
  resizeSelection,
  selectionRange,
  selectionTotals,
  suggestConsults,
  zoomAt,
  type LocalDate,
} from '../../../shared/timeline';
import { earmark } from '../bridge';

export const CLINIC_TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
const MINUTE_MS = 60_000;
const TERMINAL: readonly ConversationStatus[] = ['UPLOADED', 'FAILED', 'FILTERED'];
/** How often a conversation being processed is asked for its status. */
const FOLLOW_INTERVAL_MS = 1000;

export interface Selection {
  anchorMs: number;
  focusMs: number;
}

export type CreateOutcome =
  | { state: 'creating' }
  | { state: 'refused'; message: string }
  | { state: 'failed'; error: IpcError }
  | { state: 'created'; conversation: Conversation; recordId: string | null };

/**
 * The hub timeline screen's state: device and day, the day's minutes (cached per device and
 * day, so returning to a day paints at once), the view, the selection and what was made of it.
 */
class HubTimelineState {
  devices = $state<Device[]>([]);
  deviceId = $state<string | null>(null);
  date = $state<LocalDate>(localDate(Date.now(), CLINIC_TIME_ZONE));
  day = $derived(dayRange(this.date, CLINIC_TIME_ZONE));
  minutes = $state<TimelineMinute[] | null>(null);
  loading = $state(false);
  error = $state<IpcError | null>(null);
  view = $state({ startMs: 0, endMs: 0 });
  selection = $state<Selection | null>(null);
  cursorMs = $state<number | null>(null);
  preview = $state<{ key: string; value: Preview } | null>(null);
  created = $state<CreatedRange[]>([]);
  statuses = $state<Record<string, ConversationStatus>>({});
  outcome = $state<CreateOutcome | null>(null);

  slots = $derived(minuteSlots(this.day, this.minutes ?? []));
  consults = $derived(suggestConsults(this.minutes ?? []));
  range = $derived(
    this.selection ? selectionRange(this.selection.anchorMs, this.selection.focusMs) : null,
  );
  totals = $derived(this.range ? selectionTotals(this.minutes ?? [], this.range) : null);

  private readonly cache = new Map<string, TimelineMinute[]>();
  private loadToken = 0;

  private key(deviceId: string, startMs: number, endMs: number) {
    return `${deviceId}/${startMs}/${endMs}`;
  }

  async loadDevices(): Promise<void> {
    const result = await earmark.invoke('devices.list', {});
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    const devices = result.value.value;
    this.devices = devices;
    if (!this.deviceId || !devices.some((d) => d.value === this.deviceId)) {
      this.deviceId = devices[0]?.value ?? null;
    }
    await this.loadDay();
  }

  /** Fetches the chosen device's day (from the cache when it was fetched before) and its created ranges. */
  async loadDay(): Promise<void> {
    const deviceId = this.deviceId;
    const { startMs, endMs } = this.day;
    this.view = { startMs, endMs };
    this.selection = null;
    this.outcome = null;
    if (!deviceId) return;
    const token = ++this.loadToken;
    const key = this.key(deviceId, startMs, endMs);
    const cached = this.cache.get(key);
    this.minutes = cached ?? null;
    this.error = null;
    this.loading = !cached;
    void this.loadCreated();
    const result = await earmark.invoke('hub.minutes', { deviceId, startMs, endMs });
    if (token !== this.loadToken) return;
    this.loading = false;
    if (result.ok) {
      this.cache.set(key, result.value.value.minutes);
      this.minutes = result.value.value.minutes;
    } else if (!cached) {
      this.error = result.error;
    }
  }

  async loadCreated(): Promise<void> {
    if (!this.deviceId) return;
    const result = await earmark.invoke('hub.createdRanges', {
      deviceId: this.deviceId,
      ...this.day,
    });
    if (!result.ok) return;
    this.created = result.value;
    await Promise.all(
      result.value
        .filter((range) => !TERMINAL.includes(this.statuses[range.conversationId] ?? 'ACTIVE'))
        .map(async (range) => {
          const conversation = await earmark.invoke('conversations.get', {
            deviceId: range.deviceId,
            conversationId: range.conversationId,
          });
          if (conversation.ok)
            this.statuses[range.conversationId] = conversation.value.value.status;
        }),
    );
  }

  // `earmark:day-switch-start` (User Timing): where a day switch begins, for bench/timeline.bench.ts
  // to time it to the first frame of the new day. today() goes through setDate.
  setDevice(deviceId: string): void {
    performance.mark('earmark:day-switch-start', { detail: 'setDevice' });
    this.deviceId = deviceId;
    void this.loadDay();
  }

  shiftDay(days: number): void {
    performance.mark('earmark:day-switch-start', { detail: 'shiftDay' });
    this.date = addDays(this.date, days);
    void this.loadDay();
  }

  setDate(date: LocalDate): void {
    performance.mark('earmark:day-switch-start', { detail: 'setDate' });
    this.date = date;
    void this.loadDay();
  }

  today(): void {
    this.setDate(localDate(Date.now(), CLINIC_TIME_ZONE));
  }

  select(anchorMs: number, focusMs: number): void {
    this.selection = { anchorMs, focusMs };
    this.outcome = null;
  }

  resize(edge: 'start' | 'end', toMs: number): void {
    if (this.selection) this.selection = resizeSelection(this.selection, edge, toMs, this.day);
  }

  clear(): void {
    this.selection = null;
    this.outcome = null;
  }

  /** ←/→ move the cursor a minute; with shift they extend the selection from it. */
  step(deltaMinutes: number, extend: boolean): void {
    const from = this.cursorMs ?? this.range?.startMs ?? this.view.startMs;
    if (extend) {
      const selection = this.selection ?? { anchorMs: from, focusMs: from };
      this.selection = extendSelection(selection, deltaMinutes, this.day);
      this.cursorMs = this.selection.focusMs;
    } else {
      this.cursorMs = moveMinute(from, deltaMinutes, this.day);
    }
    this.keepInView(this.cursorMs);
  }

  private keepInView(ms: number): void {
    const { startMs, endMs } = this.view;
    const length = endMs - startMs;
    if (ms < startMs) this.view = { startMs: ms, endMs: ms + length };
    else if (ms + MINUTE_MS > endMs)
      this.view = { startMs: ms + MINUTE_MS - length, endMs: ms + MINUTE_MS };
  }

  /** Moves the visible window by `deltaMs`, within the day. */
  pan(deltaMs: number): void {
    this.view = panView(this.view, this.day, deltaMs);
  }

  zoom(factor: number, anchorMs: number): void {
    this.view = zoomAt(this.view, this.day, factor, anchorMs);
  }

  /** Confirms the live totals with the service's own preview of the selected range. */
  async confirmPreview(): Promise<void> {
    const range = this.range;
    if (!range || !this.deviceId) return;
    const key = this.key(this.deviceId, range.startMs, range.endMs);
    if (this.preview?.key === key) return;
    const result = await earmark.invoke('hub.preview', {
      deviceId: this.deviceId,
      startMs: range.startMs,
      endMs: range.endMs,
    });
    if (
      result.ok &&
      this.range &&
      this.key(this.deviceId, this.range.startMs, this.range.endMs) === key
    ) {
      this.preview = { key, value: result.value };
    }
  }

  previewOfSelection(): Preview | null {
    if (!this.range || !this.deviceId || !this.preview) return null;
    return this.preview.key === this.key(this.deviceId, this.range.startMs, this.range.endMs)
      ? this.preview.value
      : null;
  }

  /** POST create for the selection; the service's refusal is shown as it is. */
  async create(): Promise<void> {
    const range = this.range;
    const deviceId = this.deviceId;
    if (!range || !deviceId || this.outcome?.state === 'creating') return;
    this.outcome = { state: 'creating' };
    const result = await earmark.invoke('hub.create', {
      deviceId,
      startMs: range.startMs,
      endMs: range.endMs,
    });
    if (!result.ok) {
      this.outcome = { state: 'failed', error: result.error };
      return;
    }
    if (!result.value.success || !result.value.conversation) {
      this.outcome = {
        state: 'refused',
        message: result.value.message ?? 'The service refused the range without saying why.',
      };
      return;
    }
    const conversationId = result.value.conversation.conversationId;
    const conversation = await earmark.invoke('conversations.get', { deviceId, conversationId });
    if (!conversation.ok) {
      this.outcome = { state: 'failed', error: conversation.error };
      return;
    }
    this.outcome = { state: 'created', conversation: conversation.value.value, recordId: null };
    this.statuses[conversationId] = conversation.value.value.status;
    await this.loadCreated();
  }

  /** Completes the created conversation and follows it to UPLOADED, FILTERED or FAILED. */
  async complete(): Promise<void> {
    const outcome = this.outcome;
    if (outcome?.state !== 'created') return;
    const { deviceId, conversationId } = outcome.conversation;
    const completed = await earmark.invoke('hub.complete', { deviceId, conversationId });
    if (!completed.ok) {
      this.outcome = { state: 'failed', error: completed.error };
      return;
    }
    let conversation = completed.value;
    this.outcome = { state: 'created', conversation, recordId: null };
    while (!TERMINAL.includes(conversation.status)) {
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
      const next = await earmark.invoke('conversations.get', { deviceId, conversationId });
      if (!next.ok) {
        this.outcome = { state: 'failed', error: next.error };
        return;
      }
      conversation = next.value.value;
      this.statuses[conversationId] = conversation.status;
      if (
        this.outcome?.state === 'created' &&
        this.outcome.conversation.conversationId === conversationId
      ) {
        this.outcome = { state: 'created', conversation, recordId: null };
      }
    }
    let recordId: string | null = null;
    if (conversation.status === 'UPLOADED') {
      const record = await earmark.invoke('conversations.record', { deviceId, conversationId });
      recordId = record.ok ? (record.value.value?.id ?? null) : null;
    }
    if (
      this.outcome?.state === 'created' &&
      this.outcome.conversation.conversationId === conversationId
    ) {
      this.outcome = { state: 'created', conversation, recordId };
    }
  }
}

export const hubTimeline = new HubTimelineState();
