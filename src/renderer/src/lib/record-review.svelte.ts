import type { Label } from '../../../shared/api';
import type {
  EarmarkApi,
  IpcError,
  PatientMatch,
  PatientSuggestion,
  RecordReview,
  ReviewSettings,
} from '../../../shared/ipc';
import { REVIEW_VIEWING_MS } from '../../../shared/ipc/constants';

/**
 * A record's review on the record view: whether this user reviewed it (and marking it so after
 * its transcript or note has been in view for REVIEW_VIEWING_MS, when the setting says so), the
 * clinic's sign-off, and the suggested patient, assigned with one action (never by itself).
 */
export class RecordReviewStore {
  review = $state.raw<RecordReview | null>(null);
  settings = $state.raw<ReviewSettings | null>(null);
  match = $state.raw<PatientMatch | null>(null);
  /** The suggestion being assigned, while the service answers. */
  assigning = $state<string | null>(null);
  signing = $state(false);
  error = $state.raw<IpcError | null>(null);
  private labelId: string | null = null;
  private viewing: ReturnType<typeof setTimeout> | undefined;
  /** Whether the transcript or note is in view now (the view may say so before the load ends). */
  private inView = false;
  private request = 0;

  constructor(
    private readonly earmark: EarmarkApi,
    private readonly viewingMs = REVIEW_VIEWING_MS,
  ) {}

  /** Reads the record's review, the settings and (for a record without a patient) suggestions. */
  async load(label: Pick<Label, 'id' | 'patient'>): Promise<void> {
    if (label.id !== this.labelId) {
      this.stopViewing();
      this.review = null;
      this.match = null;
    }
    this.labelId = label.id;
    const mine = ++this.request;
    const [review, settings, match] = await Promise.all([
      this.earmark.invoke('review.record', { labelId: label.id }),
      this.earmark.invoke('review.settings', {}),
      label.patient
        ? Promise.resolve(null)
        : this.earmark.invoke('review.suggestions', { labelId: label.id }),
    ]);
    if (mine !== this.request) return;
    if (review.ok) this.review = review.value;
    if (settings.ok) this.settings = settings.value.settings;
    this.match = match?.ok ? match.value : null;
    const failed = [review, settings, match].find((r) => r && !r.ok);
    this.error = failed && !failed.ok ? failed.error : null;
    this.viewed(this.inView);
  }

  /**
   * The transcript or note is in view (or no longer): after a few seconds in view the record
   * counts as reviewed, unless the setting says by hand, or it is reviewed as it is already.
   */
  viewed(inView: boolean): void {
    this.inView = inView;
    if (!inView) return this.stopViewing();
    if (this.viewing || this.settings?.markOnOpen !== 'after-viewing') return;
    if (this.review?.reviewed.state === 'current') return;
    this.viewing = setTimeout(() => {
      this.viewing = undefined;
      void this.mark(true);
    }, this.viewingMs);
  }

  stopViewing(): void {
    clearTimeout(this.viewing);
    this.viewing = undefined;
  }

  async mark(reviewed: boolean): Promise<void> {
    const labelId = this.labelId;
    if (!labelId) return;
    const result = await this.earmark.invoke('review.mark', {
      records: [labelId],
      conversations: [],
      reviewed,
    });
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    const review = await this.earmark.invoke('review.record', { labelId });
    if (review.ok && labelId === this.labelId) this.review = review.value;
  }

  /** Assigns a suggested patient (the seed's assign); answers the record as the service returned it. */
  async assign(suggestion: PatientSuggestion): Promise<Label | null> {
    const labelId = this.labelId;
    if (!labelId || this.assigning) return null;
    this.assigning = suggestion.patientId;
    const result = await this.earmark.invoke('labels.assign', {
      labelId,
      patientId: suggestion.patientId,
    });
    this.assigning = null;
    if (!result.ok) {
      this.error = result.error;
      return null;
    }
    this.match = null;
    return result.value;
  }

  /** Signs the record off for the clinic. */
  async signOff(): Promise<void> {
    const labelId = this.labelId;
    if (!labelId || this.signing) return;
    this.signing = true;
    const result = await this.earmark.invoke('review.signOff', { labelId });
    this.signing = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    if (this.review) this.review = { ...this.review, signedOff: result.value };
  }
}
