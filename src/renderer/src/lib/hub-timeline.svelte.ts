import type { Conversation, Device, Preview, TimelineMinute } from '../../../shared/api';
import { MINUTE_MS, TERMINAL_STATUSES } from '../../../shared/api/values';
import type { EarmarkApi, IpcError, IpcResult } from '../../../shared/ipc';
import {
  addDays,
  dayRange,
  extendSelection,
  localDate,
  minuteSlots,
  moveMinute,
  overlappingBand,
  panView,
  resizeSelection,
  selectionRange,
  selectionTotals,
  suggestConsults,
  zoomAt,
  type ConversationBand,
  type LocalDate,
  type Selection,
} from '../../../shared/timeline';
import { CLINIC_TIME_ZONE } from './clinic-time';
import { SpokenByStore } from './spoken-by.svelte';

export type CreateOutcome =
  | { state: 'creating' }
  | { state: 'refused'; message: string }
  | { state: 'failed'; error: IpcError }
  | { state: 'created'; conversation: Conversation; recordId: string | null };

/**
 * The hub timeline screen's state: device and day, the day's minutes (cached per device and
 * day, so returning to a day paints at once), the view, the selection and what was made of it.
 */
export class HubTimelineStore {
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
  /** The service's preview of a selection (its totals), or why it could not give one. */
  private confirmation = $state<{ key: string; result: IpcResult<Preview> } | null>(null);
  /** Every conversation of the device known on this day (hub.bands). */
  bands = $state.raw<ConversationBand[]>([]);
  /**
   * The device and day the bands are of: suggestions wait for them, so none is offered that a
   * conversation already covers.
   */
  bandsOf = $state<string | null>(null);
  /** Who spoke in the bands' records, where named on this computer. */
  readonly spoken: SpokenByStore;
  outcome = $state<CreateOutcome | null>(null);

  slots = $derived(minuteSlots(this.day, this.minutes ?? []));
  consults = $derived(suggestConsults(this.minutes ?? []));
  /**
   * The day loaded and holds no recording at all. A day that failed to load (offline, a key
   * without the hub) is not that: its error says why.
   */
  nothingRecorded = $derived(
    this.error === null && this.slots.every((slot) => slot.state === 'no-data'),
  );
  /**
   * The suggested consults, each with the conversation that already covers it (the service would
   * refuse to create it): those are shown as that conversation, not offered for Create.
   */
  suggestions = $derived(
    this.bandsOf === `${this.deviceId}/${this.day.startMs}`
      ? this.consults.map((consult) => ({
          ...consult,
          covering: overlappingBand(consult, this.bands) ?? null,
        }))
      : [],
  );
  /** Suggestions no conversation covers yet: the ones offered for Create. */
  openConsults = $derived(this.suggestions.filter((s) => s.covering === null));
  /** The list of keyboard shortcuts is shown. */
  shortcutsShown = $state(false);
  /** The last Shift+arrow stopped at the 90-minute cap (the range is whole, but was cut). */
  capHit = $state(false);
  range = $derived(
    this.selection
      ? {
          ...selectionRange(this.selection.anchorMs, this.selection.focusMs),
          ...(this.capHit ? { capped: true } : {}),
        }
      : null,
  );
  /** A known conversation the selection overlaps: Create would be refused, so it is not offered. */
  overlap = $derived(this.range ? (overlappingBand(this.range, this.bands) ?? null) : null);
  totals = $derived(this.range ? selectionTotals(this.minutes ?? [], this.range) : null);

  // Bookkeeping, never drawn: plain collections, not reactive ones.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  private readonly cache = new Map<string, TimelineMinute[]>();
  private loadToken = 0;
  /** The device and day (cache key) the view and selection belong to. */
  private shown: string | null = null;

  constructor(private readonly api: EarmarkApi) {
    this.spoken = new SpokenByStore(api);
    // Main follows the conversations completed here; their bands and the outcome follow it.
    api.on('conversation.changed', ({ conversation }) => this.changed(conversation));
  }

  private key(deviceId: string, startMs: number, endMs: number) {
    return `${deviceId}/${startMs}/${endMs}`;
  }

  async loadDevices(): Promise<void> {
    const result = await this.api.invoke('devices.list', {});
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
    const key = deviceId ? this.key(deviceId, startMs, endMs) : null;
    // Coming back to the day already shown (the screen mounts again) refreshes it: what the user
    // selected there, perhaps a moment ago, stays.
    if (key === null || key !== this.shown) {
      this.view = { startMs, endMs };
      this.selection = null;
      this.outcome = null;
    }
    this.shown = key;
    if (!deviceId || !key) return;
    const token = ++this.loadToken;
    const cached = this.cache.get(key);
    this.minutes = cached ?? null;
    this.error = null;
    this.loading = !cached;
    void this.loadBands();
    const result = await this.api.invoke('hub.minutes', { deviceId, startMs, endMs });
    if (token !== this.loadToken) return;
    this.loading = false;
    if (result.ok) {
      this.cache.set(key, result.value.value.minutes);
      this.minutes = result.value.value.minutes;
    } else if (!cached) {
      this.error = result.error;
    }
  }

  /** The device's conversations of the day, as bands (offline: those kept in the cache). */
  async loadBands(): Promise<void> {
    const deviceId = this.deviceId;
    if (!deviceId) return;
    const day = this.day;
    const result = await this.api.invoke('hub.bands', { deviceId, ...day });
    if (deviceId !== this.deviceId || day.startMs !== this.day.startMs) return;
    // Not known (offline with nothing kept): suggestions are offered; the service decides.
    this.bands = result.ok ? result.value.value : [];
    this.bandsOf = `${deviceId}/${day.startMs}`;
    await this.spoken.load(this.bands.flatMap((band) => (band.labelId ? [band.labelId] : [])));
  }

  /** A conversation main follows changed: its band, and the outcome when it is the new one. */
  private changed(conversation: Conversation): void {
    this.bands = this.bands.map((band) =>
      band.conversationId === conversation.conversationId
        ? { ...band, status: conversation.status, labelId: conversation.labelId ?? band.labelId }
        : band,
    );
    const outcome = this.outcome;
    if (
      outcome?.state === 'created' &&
      outcome.conversation.conversationId === conversation.conversationId
    ) {
      const settled = TERMINAL_STATUSES.includes(outcome.conversation.status);
      this.outcome = { ...outcome, conversation };
      if (!settled && TERMINAL_STATUSES.includes(conversation.status))
        void this.settle(conversation);
    }
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
    this.capHit = false;
    this.outcome = null;
  }

  /** A suggested consult picked: selected whole, the cursor at its start, the service asked. */
  selectConsult(consult: { startMs: number; endMs: number }): void {
    this.select(consult.startMs, consult.endMs - MINUTE_MS);
    this.cursorMs = consult.startMs;
    void this.confirmPreview();
  }

  resize(edge: 'start' | 'end', toMs: number): void {
    if (this.selection) this.selection = resizeSelection(this.selection, edge, toMs, this.day);
  }

  clear(): void {
    this.selection = null;
    this.capHit = false;
    this.outcome = null;
  }

  /** ←/→ move the cursor a minute; with shift they extend the selection from it. */
  step(deltaMinutes: number, extend: boolean): void {
    const from = this.cursorMs ?? this.range?.startMs ?? this.view.startMs;
    if (extend) {
      const selection = this.selection ?? { anchorMs: from, focusMs: from };
      const next = extendSelection(selection, deltaMinutes, this.day);
      // The day's edge stops it too, silently; only the cap is said.
      this.capHit = next.focusMs !== moveMinute(selection.focusMs, deltaMinutes, this.day);
      this.selection = next;
      this.cursorMs = this.selection.focusMs;
    } else {
      this.cursorMs = moveMinute(from, deltaMinutes, this.day);
    }
    this.keepInView(this.cursorMs);
  }

  /** Home and End: the cursor to the day's first or last minute (in view). */
  jumpTo(edge: 'start' | 'end'): void {
    this.cursorMs = edge === 'start' ? this.day.startMs : this.day.endMs - MINUTE_MS;
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
    const key = this.selectionKey();
    if (!range || !this.deviceId || key === null) return;
    if (this.confirmation?.key === key && this.confirmation.result.ok) return;
    const result = await this.api.invoke('hub.preview', {
      deviceId: this.deviceId,
      startMs: range.startMs,
      endMs: range.endMs,
    });
    if (this.selectionKey() === key) this.confirmation = { key, result };
  }

  /** The device and range selected now, as the preview's key; null with nothing selected. */
  private selectionKey(): string | null {
    return this.range && this.deviceId
      ? this.key(this.deviceId, this.range.startMs, this.range.endMs)
      : null;
  }

  /** The service's answer for the selection as it is now; null while it may yet come. */
  private confirmationOfSelection(): IpcResult<Preview> | null {
    const key = this.selectionKey();
    return key !== null && this.confirmation?.key === key ? this.confirmation.result : null;
  }

  /** Why the service did not confirm the current selection's totals; null while it may yet. */
  previewErrorOfSelection(): IpcError | null {
    const result = this.confirmationOfSelection();
    return result && !result.ok ? result.error : null;
  }

  previewOfSelection(): Preview | null {
    const result = this.confirmationOfSelection();
    return result?.ok ? result.value : null;
  }

  /** POST create for the selection; the service's refusal is shown as it is. */
  async create(): Promise<void> {
    const range = this.range;
    const deviceId = this.deviceId;
    if (!range || !deviceId || this.outcome?.state === 'creating') return;
    this.outcome = { state: 'creating' };
    const result = await this.api.invoke('hub.create', {
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
    const conversation = await this.api.invoke('conversations.get', { deviceId, conversationId });
    if (!conversation.ok) {
      this.outcome = { state: 'failed', error: conversation.error };
      return;
    }
    const created = conversation.value.value;
    // Its band at once, with the outcome: the consult it covers is no longer offered while the
    // bands are read again (a quick second click would be refused as overlapping). A read that
    // came back meanwhile may hold it already: it is there once.
    this.bands = [
      ...this.bands.filter((band) => band.conversationId !== conversationId),
      {
        startMs: range.startMs,
        endMs: range.endMs,
        conversationId,
        status: created.status,
        labelId: created.labelId ?? null,
        createdHere: true,
        source: 'created',
      },
    ];
    this.outcome = { state: 'created', conversation: created, recordId: null };
    await this.loadBands();
  }

  /** Completes the created conversation; main follows it to UPLOADED, FILTERED or FAILED. */
  async complete(): Promise<void> {
    const outcome = this.outcome;
    if (outcome?.state !== 'created') return;
    const { deviceId, conversationId } = outcome.conversation;
    const completed = await this.api.invoke('hub.complete', { deviceId, conversationId });
    if (!completed.ok) {
      this.outcome = { state: 'failed', error: completed.error };
      return;
    }
    this.changed(completed.value);
    const followed = await this.api.invoke('conversations.follow', { deviceId, conversationId });
    if (!followed.ok) {
      this.outcome = { state: 'failed', error: followed.error };
      return;
    }
    this.changed(followed.value.value);
  }

  /** A conversation created here reached its final status: the record it became, if any. */
  private async settle(conversation: Conversation): Promise<void> {
    const { deviceId, conversationId } = conversation;
    let recordId: string | null = conversation.labelId ?? null;
    if (conversation.status === 'UPLOADED' && !recordId) {
      const record = await this.api.invoke('conversations.record', { deviceId, conversationId });
      recordId = record.ok ? (record.value.value?.id ?? null) : null;
    }
    const outcome = this.outcome;
    if (outcome?.state === 'created' && outcome.conversation.conversationId === conversationId) {
      this.outcome = { ...outcome, recordId };
    }
    await this.loadBands();
  }
}
