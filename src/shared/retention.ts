/**
 * How long a clinic keeps its data on this computer (issue 29): audio and text apart, each a
 * number of days or for ever. A record's age is the time since it started (its `fromTime`); a
 * hub timeline minute's, the time since that minute; a conversation's, since the range it
 * covers starts, or since this computer first saw it when the service says no time.
 */

/** The choices offered, in days; `null` keeps for ever. */
export const RETENTION_CHOICES = [1, 7, 30, 90, 365, null] as const;
export type RetentionDays = (typeof RETENTION_CHOICES)[number];

export interface RetentionSettings {
  /** Audio files, partly downloaded audio and waveform peaks. */
  audioDays: RetentionDays;
  /**
   * Transcripts, clinical notes, patient names, speaker names, review marks and hub timelines:
   * the records themselves (a record without its text is not kept either).
   */
  textDays: RetentionDays;
}

/** What a clinic keeps until it chooses otherwise. */
const DEFAULT_RETENTION: RetentionSettings = { audioDays: 30, textDays: 90 };

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Records starting before this time are older than `days` at `nowMs`; null: kept for ever. */
export const cutoffOf = (days: RetentionDays, nowMs: number): number | null =>
  days === null ? null : nowMs - days * DAY_MS;

const isRetentionDays = (value: unknown): value is RetentionDays =>
  (RETENTION_CHOICES as readonly unknown[]).includes(value);

/** A stored setting read tolerantly: anything this version does not offer is the default. */
export function retentionOf(stored: Partial<RetentionSettings> | undefined): RetentionSettings {
  return {
    audioDays: isRetentionDays(stored?.audioDays) ? stored.audioDays : DEFAULT_RETENTION.audioDays,
    textDays: isRetentionDays(stored?.textDays) ? stored.textDays : DEFAULT_RETENTION.textDays,
  };
}
