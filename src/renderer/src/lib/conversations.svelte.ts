import type { Conversation, ConversationStatus, Device } from '../../../shared/api';
import { TERMINAL_STATUSES } from '../../../shared/api/values';
import type {
  ChannelInput,
  ChannelOutput,
  ConversationSummary,
  EarmarkApi,
  IpcError,
  ReadSource,
} from '../../../shared/ipc';
import { dayRange, groupByDay, parseDateKey, type DayGroup } from '../../../shared/timeline';
import { CLINIC_TIME_ZONE } from './clinic-time';

/**
 * The Conversations screen's state and its calls to main: the list (with when each conversation
 * was and the record it became), its filters (status, device, day), the detail's lookups, and
 * completing a conversation, which main then follows to its final status (conversation.changed).
 * Kept at module level, so Back from a record returns to the same filters, rows and selection;
 * another account starts over.
 */

const PAGE_SIZE = 50;

export type ConversationRef = { deviceId: string; conversationId: string };
export const keyOf = (c: ConversationRef) => `${c.deviceId}/${c.conversationId}`;

export type Follow =
  { state: 'completing' } | { state: 'following' } | { state: 'failed'; error: IpcError };
export type RecordLookup =
  | { state: 'looking' }
  | { state: 'found'; labelId: string }
  | { state: 'none' }
  | { state: 'failed'; error: IpcError };

const isFinal = (status: ConversationStatus) => TERMINAL_STATUSES.includes(status);

export class ConversationsStore {
  accountId: string | null = null;
  status = $state<ConversationStatus | ''>('');
  deviceId = $state('');
  /** A clinic-local day, YYYY-MM-DD; '' for every day. */
  day = $state('');
  devices = $state.raw<Device[]>([]);
  items = $state.raw<ConversationSummary[]>([]);
  hasMore = $state(false);
  /** The first page of the current filters has arrived. */
  loaded = $state(false);
  loading = $state(false);
  error = $state<IpcError | null>(null);
  /** Where the rows came from: the service, or (offline) this computer's cache, and when. */
  source = $state<ReadSource>('service');
  fetchedAt = $state<string | null>(null);
  /** The row whose detail is open. */
  selectedKey = $state<string | null>(null);
  /** The row that takes keyboard focus (roving tabindex); stays when the detail is closed. */
  activeKey = $state<string | null>(null);
  follows = $state<Record<string, Follow>>({});
  records = $state<Record<string, RecordLookup>>({});
  scrollTop = 0;
  private nextPageToken: string | undefined;
  private generation = 0;

  constructor(private readonly api: EarmarkApi) {
    // Main follows the conversations completed here to their final status and says so.
    api.on('conversation.changed', ({ conversation }) => {
      this.update(conversation);
      const key = keyOf(conversation);
      if (isFinal(conversation.status) && this.follows[key]?.state === 'following') {
        delete this.follows[key];
      }
    });
  }

  get filtered(): boolean {
    return this.status !== '' || this.deviceId !== '' || this.day !== '';
  }

  get selected(): ConversationSummary | null {
    return this.items.find((s) => keyOf(s.conversation) === this.selectedKey) ?? null;
  }

  /** The rows by clinic-local day, newest first; those whose time is unknown apart. */
  get groups(): { days: DayGroup<ConversationSummary>[]; undated: ConversationSummary[] } {
    return groupByDay(this.items, (s) => s.startMs, CLINIC_TIME_ZONE);
  }

  /** The rows in the order the list shows them: by day, newest first, then those without a time. */
  get ordered(): ConversationSummary[] {
    const { days, undated } = this.groups;
    return [...days.flatMap((day) => day.items), ...undated];
  }

  /** The row that takes the keyboard focus: the active one while it is listed, else the first. */
  get tabStop(): string | null {
    const ordered = this.ordered;
    if (ordered.some((s) => keyOf(s.conversation) === this.activeKey)) return this.activeKey;
    return ordered[0] ? keyOf(ordered[0].conversation) : null;
  }

  /** A row chosen (a click, or the keyboard on it): its detail opens. */
  select(key: string): void {
    this.selectedKey = this.activeKey = key;
  }

  /**
   * A key pressed on the list: ↑/↓, Home and End move to a row and open it, Enter and Space
   * open the row the keyboard is on, Escape closes the detail; at the last row the next page is
   * asked for. The row to focus, or null for a key the list does not take (or nothing to do).
   */
  key(key: string): { focus: string | null } | null {
    const ordered = this.ordered;
    const count = ordered.length;
    if (count === 0) return null;
    const at = this.activeKey ?? this.tabStop;
    const index = ordered.findIndex((s) => keyOf(s.conversation) === at);
    let next: number;
    switch (key) {
      case 'ArrowDown':
        next = index < 0 ? 0 : Math.min(index + 1, count - 1);
        break;
      case 'ArrowUp':
        next = index < 0 ? 0 : Math.max(index - 1, 0);
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = count - 1;
        break;
      case 'Enter':
      case ' ':
        next = Math.max(index, 0);
        break;
      case 'Escape':
        if (this.selectedKey === null) return null;
        this.selectedKey = null;
        return { focus: null };
      default:
        return null;
    }
    const rowKey = keyOf(ordered[next]!.conversation);
    this.select(rowKey);
    if (next === count - 1 && this.hasMore) void this.loadPage();
    return { focus: rowKey };
  }

  /** Called by each new screen: the same account keeps what it had, another starts over. */
  attach(accountId: string): void {
    if (accountId === this.accountId && (this.loaded || this.loading)) return;
    if (accountId !== this.accountId) {
      this.accountId = accountId;
      this.status = '';
      this.deviceId = '';
      this.day = '';
      this.devices = [];
      this.follows = {};
      this.records = {};
      this.scrollTop = 0;
      void this.loadDevices();
    }
    this.restart();
  }

  async loadDevices(): Promise<void> {
    const accountId = this.accountId;
    const result = await this.api.invoke('devices.list', {});
    if (result.ok && accountId === this.accountId) this.devices = result.value.value;
  }

  deviceName(deviceId: string): string {
    return this.devices.find((d) => d.value === deviceId)?.displayName ?? deviceId;
  }

  /** New filters: drop what was loaded (and any answer still on its way) and load page one. */
  restart(): void {
    this.generation++;
    this.items = [];
    this.hasMore = false;
    this.nextPageToken = undefined;
    this.loaded = false;
    this.loading = false;
    this.error = null;
    this.selectedKey = null;
    this.activeKey = null;
    this.scrollTop = 0;
    void this.loadPage();
  }

  clearFilters(): void {
    this.status = '';
    this.deviceId = '';
    this.day = '';
    this.restart();
  }

  /** The day filter as the range main filters by (the clinic's local day, 23–25 hours). */
  private dayFilter(): { startMs: number; endMs: number } | Record<string, never> {
    const date = this.day ? parseDateKey(this.day) : undefined;
    return date ? dayRange(date, CLINIC_TIME_ZONE) : {};
  }

  async loadPage(): Promise<void> {
    if (this.loading || (this.loaded && !this.hasMore)) return;
    const generation = this.generation;
    this.loading = true;
    this.error = null;
    const result = await this.api.invoke('conversations.list', {
      pageSize: PAGE_SIZE,
      ...(this.nextPageToken ? { pageToken: this.nextPageToken } : {}),
      ...(this.status ? { status: this.status } : {}),
      ...(this.deviceId ? { deviceId: this.deviceId } : {}),
      ...this.dayFilter(),
    });
    if (generation !== this.generation) return; // the filters changed meanwhile
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    const { value: page, source, fetchedAt } = result.value;
    const seen = Object.fromEntries(this.items.map((s) => [keyOf(s.conversation), true]));
    // A conversation that changed status between pages may come twice: keep the first.
    this.items = [...this.items, ...page.items.filter((s) => !seen[keyOf(s.conversation)])];
    this.nextPageToken = page.nextPageToken;
    this.hasMore = page.hasMore && page.nextPageToken !== undefined;
    this.source = source;
    this.fetchedAt = fetchedAt;
    this.loaded = true;
    // A page filtered here (a service without the day filter) may bring no row: ask on.
    if (this.day && this.hasMore && page.items.length === 0) void this.loadPage();
  }

  /** Puts a fresher copy of a conversation in its row. */
  update(conversation: Conversation): void {
    const key = keyOf(conversation);
    this.items = this.items.map((s) =>
      keyOf(s.conversation) === key
        ? {
            ...s,
            conversation,
            labelId: conversation.labelId ?? s.labelId,
          }
        : s,
    );
  }

  /** POST complete; main then follows it until it settles (conversation.changed). */
  async complete(conversation: Conversation): Promise<void> {
    const now = this.follows[keyOf(conversation)]?.state;
    if (now === 'completing' || now === 'following') return;
    const completed = await this.followStep(conversation, 'completing', 'hub.complete');
    if (!completed) return;
    this.update(completed);
    await this.follow(completed);
  }

  /** Has main follow the conversation to its final status (or look once, if it is final). */
  async follow(conversation: Conversation): Promise<void> {
    const followed = await this.followStep(conversation, 'following', 'conversations.follow');
    if (!followed) return;
    this.update(followed.value);
    if (isFinal(followed.value.status)) delete this.follows[keyOf(conversation)];
  }

  /**
   * One step of following a conversation: said in its row's follow, then asked of main. Its
   * answer; null when it failed (said in the follow) or another account was opened meanwhile.
   */
  private async followStep<C extends 'hub.complete' | 'conversations.follow'>(
    conversation: Conversation,
    state: 'completing' | 'following',
    channel: C,
  ): Promise<ChannelOutput<C> | null> {
    const key = keyOf(conversation);
    const accountId = this.accountId;
    this.follows[key] = { state };
    const result = await this.api.invoke(channel, {
      deviceId: conversation.deviceId,
      conversationId: conversation.conversationId,
    } as ChannelInput<C>);
    if (accountId !== this.accountId) return null;
    if (!result.ok) {
      this.follows[key] = { state: 'failed', error: result.error };
      return null;
    }
    return result.value;
  }

  /**
   * The record a conversation became: the one its row names, else asked of main (which finds it
   * by the range this app created it from). Asked once per conversation.
   */
  async findRecord(summary: ConversationSummary): Promise<void> {
    const key = keyOf(summary.conversation);
    if (summary.labelId) {
      this.records[key] = { state: 'found', labelId: summary.labelId };
      return;
    }
    const accountId = this.accountId;
    this.records[key] = { state: 'looking' };
    const result = await this.api.invoke('conversations.record', {
      deviceId: summary.conversation.deviceId,
      conversationId: summary.conversation.conversationId,
    });
    if (accountId !== this.accountId) return;
    this.records[key] = !result.ok
      ? { state: 'failed', error: result.error }
      : result.value.value
        ? { state: 'found', labelId: result.value.value.id }
        : { state: 'none' };
  }
}
