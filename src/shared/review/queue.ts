import type { ConversationStatus, RecordType } from '../api/values';
import { groupByDay, type DayGroup } from '../timeline/days';

/**
 * The review queue's rules: why a record or a conversation needs this user's attention, in plain
 * words; which count; the filters. Pure: main reads the facts from the account's cache, the
 * renderer shows the items.
 */

export type ReviewItemKind = 'record' | 'conversation';

export const REVIEW_REASONS = [
  'new',
  'updated',
  'no-patient',
  'failed',
  'excluded',
  'still-active',
  'processing',
] as const;
export type ReviewReasonKind = (typeof REVIEW_REASONS)[number];

/** Whether an item was reviewed, and whether what was reviewed is still what it shows. */
export type ReviewedState =
  | { state: 'never' }
  | { state: 'current'; at: number }
  /** Reviewed, then its current transcript or clinical note changed. */
  | { state: 'changed'; at: number; transcript: boolean; note: boolean };

export interface SignOff {
  /** Who signed it off (the task's assignee). */
  by: string;
  /** When (the task's completedAt), ISO 8601. */
  at: string;
}

/** What the cache knows of an item. */
export interface ReviewFacts {
  kind: ReviewItemKind;
  /** The record's (label's) id, or the conversation's. */
  id: string;
  /** A conversation's device (with its id, it names the conversation); null for records. */
  deviceId: string | null;
  /** Where it was recorded: the room's device (its serial) and its name. */
  source: { key: string; name: string };
  startMs: number | null;
  endMs: number | null;
  recordType: RecordType | null;
  patient: string | null;
  reviewed: ReviewedState;
  /** A record whose current transcript is missing or still being written. */
  transcriptPending: boolean;
  conversationStatus: ConversationStatus | null;
  /** The service's reason a conversation failed or was excluded. */
  statusReason: string;
  signedOff: SignOff | null;
  /** Its first words (the current transcript's), for the list. */
  preview: string;
}

type ReviewReason =
  | { kind: 'new' }
  | { kind: 'updated'; transcript: boolean; note: boolean }
  | { kind: 'no-patient' }
  | { kind: 'failed'; reason: string }
  | { kind: 'excluded'; reason: string }
  | { kind: 'still-active'; endedMs: number }
  | { kind: 'processing' };

export interface ReviewItem extends ReviewFacts {
  reasons: ReviewReason[];
  /** In the queue: not reviewed as it is now, and not signed off by the clinic. */
  inQueue: boolean;
  /** Something this user can do now (being processed is shown, not actionable). */
  actionable: boolean;
}

const BEING_PROCESSED: readonly (ConversationStatus | null)[] = ['COMPLETED', 'PROCESSING'];

/** The reasons of an item as it is at `nowMs`; none for one that needs nothing. */
function reasonsOf(facts: ReviewFacts, nowMs: number): ReviewReason[] {
  if (facts.kind === 'conversation') {
    const status = facts.conversationStatus;
    if (status === 'FAILED') return [{ kind: 'failed', reason: facts.statusReason }];
    if (status === 'FILTERED') return [{ kind: 'excluded', reason: facts.statusReason }];
    if (BEING_PROCESSED.includes(status)) return [{ kind: 'processing' }];
    if (status === 'ACTIVE' && facts.endMs !== null && facts.endMs <= nowMs)
      return [{ kind: 'still-active', endedMs: facts.endMs }];
    return [];
  }
  if (facts.transcriptPending) return [{ kind: 'processing' }];
  const reasons: ReviewReason[] = [];
  const reviewed = facts.reviewed;
  if (reviewed.state === 'never') reasons.push({ kind: 'new' });
  if (reviewed.state === 'changed')
    reasons.push({ kind: 'updated', transcript: reviewed.transcript, note: reviewed.note });
  if (facts.patient === null) reasons.push({ kind: 'no-patient' });
  return reasons;
}

/**
 * When the clock alone next changes the item's reasons (reasonsOf): an active conversation's
 * end passing makes it "still active". Null when nothing but a change of its facts would.
 */
export function reasonsChangeAt(facts: ReviewFacts, nowMs: number): number | null {
  const ends = facts.kind === 'conversation' && facts.conversationStatus === 'ACTIVE';
  return ends && facts.endMs !== null && facts.endMs > nowMs ? facts.endMs : null;
}

/**
 * The item as the queue shows it: the facts given (not copied: a queue judges thousands of them,
 * just read) with its reasons and state.
 */
export function reviewItem(facts: ReviewFacts, nowMs: number): ReviewItem {
  const reasons = reasonsOf(facts, nowMs);
  const processing = reasons.some((r) => r.kind === 'processing');
  const needed = reasons.length > 0 && facts.reviewed.state !== 'current';
  return Object.assign(facts, {
    reasons,
    inQueue: needed && facts.signedOff === null,
    actionable: !processing,
  });
}

/** What the Review screen filters by; an empty list is no filter. */
export interface ReviewFilter {
  /** Rooms and devices (source keys). */
  sources?: string[];
  kinds?: ReviewItemKind[];
  reasons?: ReviewReasonKind[];
  /** Also list what was reviewed or signed off (to undo a mark). */
  showReviewed?: boolean;
}

/** The number the sidebar shows: items in the queue this user can act on. */
export const countsTowardQueue = (item: ReviewItem): boolean => item.inQueue && item.actionable;

/** Newest first; undated conversations (a service that sends no times) after them. */
export function compareItems(
  a: Pick<ReviewItem, 'startMs' | 'id'>,
  b: Pick<ReviewItem, 'startMs' | 'id'>,
): number {
  const at = a.startMs ?? Number.NEGATIVE_INFINITY;
  const bt = b.startMs ?? Number.NEGATIVE_INFINITY;
  return bt - at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Items grouped by clinic-local day, newest day first (the list's headings). */
export const reviewDays = <T extends Pick<ReviewItem, 'startMs'>>(
  items: readonly T[],
  timeZone?: string,
): { days: DayGroup<T>[]; undated: T[] } => groupByDay(items, (item) => item.startMs, timeZone);

/** An item's key across kinds (a conversation and a record never share one). */
export const itemKey = (item: Pick<ReviewItem, 'kind' | 'id'>): string => `${item.kind}:${item.id}`;

/** A reason in a word or two, as a list's badge says it (reasonWords says it whole). */
export const REASON_LABELS: Record<ReviewReasonKind, string> = {
  new: 'New',
  updated: 'Updated',
  'no-patient': 'No patient yet',
  failed: 'Failed',
  excluded: 'Excluded',
  'still-active': 'Still active',
  processing: 'Being processed',
};

/** A reason in plain words; `clock` formats a time of day in the clinic's zone. */
export function reasonWords(reason: ReviewReason, clock: (ms: number) => string): string {
  switch (reason.kind) {
    case 'new':
      return 'New';
    case 'updated':
      return `Updated since you reviewed it: ${
        reason.transcript && reason.note
          ? 'a newer transcript and clinical note'
          : reason.note
            ? 'a newer clinical note'
            : 'a newer transcript'
      }`;
    case 'no-patient':
      return 'No patient yet';
    case 'failed':
      return reason.reason ? `Conversation failed: ${reason.reason}` : 'Conversation failed';
    case 'excluded':
      return reason.reason
        ? `Excluded — ${reason.reason.replace(/^Excluded:?\s*/i, '')}`
        : 'Excluded — too little speech';
    case 'still-active':
      return `Still active, although its time ended at ${clock(reason.endedMs)} — complete it to process it`;
    case 'processing':
      return 'Being processed by the service';
  }
}
