import { Type } from '@sinclair/typebox';
import { EpochMs, Uuid } from '../api';
import type { PatientMatch } from '../review/patient-match';
import type { QueuePage } from '../review/queue-index';
import {
  REVIEW_REASONS,
  type ReviewedState,
  type ReviewItem,
  type ReviewItemKind,
  type SignOff,
} from '../review/queue';
import { channel, None } from './channel';

export type {
  ReviewFacts,
  ReviewFilter,
  ReviewItem,
  ReviewItemKind,
  ReviewReasonKind,
  SignOff,
} from '../review/queue';
export type { PatientMatch, PatientSuggestion } from '../review/patient-match';

/** This user's review settings on this computer (kept in the account's cache). */
export interface ReviewSettings {
  /**
   * When opening a record marks it reviewed: once its transcript or note has been shown for a few
   * seconds ('after-viewing'), or never ('by-hand': only `r` and the buttons do).
   */
  markOnOpen: 'after-viewing' | 'by-hand';
  /** A system notification when a conversation created here is processed or fails. */
  notifications: boolean;
  /** Clinic sign-off through the task boards; only an owner or admin turns it on. */
  signOff: boolean;
}

/** One page of the queue, its items whole, with what the screen's headings and filters need of the whole. */
export type ReviewPage = Omit<QueuePage, 'entries'> & { items: ReviewItem[] };

/** What the record view shows of a record's review. */
export interface RecordReview {
  reviewed: ReviewedState;
  signedOff: SignOff | null;
  /** Whether sign-off is on for this user here. */
  signOffEnabled: boolean;
}

/** Settings as Settings shows them. */
export interface ReviewSettingsView {
  settings: ReviewSettings;
  /** What turning sign-off on writes to the clinic's boards, in plain words. */
  signOffWrites: string;
}

/** A conversation created here reached its end: the renderer shows a system notification. */
export interface ReviewNotification {
  outcome: 'processed' | 'failed' | 'excluded';
  conversationId: string;
  deviceId: string;
  /** The record it became (processed), to open on click. */
  labelId: string | null;
  title: string;
  body: string;
}

const Ids = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 5000 });

const ReviewFilterSchema = Type.Object(
  {
    sources: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 })),
    kinds: Type.Optional(
      Type.Array(
        Type.Union(
          (['record', 'conversation'] satisfies ReviewItemKind[]).map((k) => Type.Literal(k)),
        ),
        { maxItems: 2 },
      ),
    ),
    reasons: Type.Optional(
      Type.Array(Type.Union(REVIEW_REASONS.map((r) => Type.Literal(r))), {
        maxItems: REVIEW_REASONS.length,
      }),
    ),
    showReviewed: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Review: what needs this user's attention, from the account's cache (offline too). */
export const REVIEW_CHANNELS = {
  /**
   * A page of the queue, newest first, filtered; `fromMs`/`toMs` keep the items starting in that
   * range (a day: select all of it).
   */
  'review.list': channel<ReviewPage>()(
    Type.Object(
      {
        filter: Type.Optional(ReviewFilterSchema),
        fromMs: Type.Optional(EpochMs),
        toMs: Type.Optional(EpochMs),
        offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })),
      },
      { additionalProperties: false },
    ),
  ),
  /** The queue's count (also pushed as review.changed). */
  'review.count': channel<number>()(None),
  /** Marks records and conversations reviewed as they are now, or takes the marks off; answers the count. */
  'review.mark': channel<number>()(
    Type.Object(
      { records: Ids, conversations: Ids, reviewed: Type.Boolean() },
      { additionalProperties: false },
    ),
  ),
  /** A record's review: reviewed by this user, signed off by the clinic. */
  'review.record': channel<RecordReview>()(
    Type.Object({ labelId: Uuid }, { additionalProperties: false }),
  ),
  /** Signs a record off for the clinic: a done task on the clinic's sign-off board. */
  'review.signOff': channel<SignOff>()(
    Type.Object({ labelId: Uuid }, { additionalProperties: false }),
  ),
  /** The known patients a record's transcript and note name, ranked (never assigned by itself). */
  'review.suggestions': channel<PatientMatch>()(
    Type.Object({ labelId: Uuid }, { additionalProperties: false }),
  ),
  'review.settings': channel<ReviewSettingsView>()(None),
  /** Saves some settings; turning sign-off on is refused unless the user is an owner or admin. */
  'review.saveSettings': channel<ReviewSettingsView>()(
    Type.Object(
      {
        markOnOpen: Type.Optional(
          Type.Union([Type.Literal('after-viewing'), Type.Literal('by-hand')]),
        ),
        notifications: Type.Optional(Type.Boolean()),
        signOff: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  ),
} as const;
