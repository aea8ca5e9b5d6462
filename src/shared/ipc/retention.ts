import { Type } from '@sinclair/typebox';
import { Uuid, type RecordType } from '../api';
import type { RetentionSettings } from '../retention';
import { channel, None } from './channel';

/** A record kept on this computer whatever its age ("Keep on this computer"). */
export interface KeptRecord {
  labelId: string;
  type: RecordType;
  /** The record's start, ISO 8601. */
  fromTime: string;
  patient: string | null;
  /** When it was marked, ISO 8601. */
  keptAt: string;
}

/** An amount of the clinic's data on this computer. */
interface DataAmount {
  /** Records (recordings with their transcripts, notes and patient). */
  records: number;
  /** The offline cache's pages that hold data (text, its search index and the rest). */
  textBytes: number;
  /** Audio files, partly downloaded audio included, with their waveform peaks. */
  audioFiles: number;
  audioBytes: number;
}

/** What the next cleanup will remove with the settings as they are, and what it spares. */
interface CleanupPreview extends DataAmount {
  /** Old enough to go but kept: marked "Keep on this computer", or read by an export running now. */
  spared: number;
}

/** How a cleanup ended. */
export interface CleanupSummary {
  startedAt: string;
  finishedAt: string;
  /** Records whose text was removed, and audio files removed. */
  records: number;
  audioFiles: number;
  /** Bytes freed: the cache's pages no longer in use, the audio files deleted. */
  textBytes: number;
  audioBytes: number;
}

/** The active account's cleanup: running (with progress) or idle, and the last one. */
export interface CleanupStatus {
  state: 'idle' | 'running' | 'failed';
  /** Steps done and known in the run under way (records, files, index merges). */
  done: number;
  total: number;
  last: CleanupSummary | null;
  /** Why the last cleanup stopped, in plain words. */
  message: string | null;
}

/** Settings' "Data on this computer": what is kept, its size, what the next cleanup removes. */
export interface RetentionOverview {
  settings: RetentionSettings;
  kept: DataAmount;
  next: CleanupPreview;
  /** Records marked "Keep on this computer", newest first. */
  keptRecords: KeptRecord[];
  cleanup: CleanupStatus;
}

/** What "Remove everything of this clinic from this computer" deleted. */
export interface RemovedEverything {
  files: number;
  textBytes: number;
  audioBytes: number;
}

const Days = Type.Union([
  Type.Literal(1),
  Type.Literal(7),
  Type.Literal(30),
  Type.Literal(90),
  Type.Literal(365),
  Type.Null(),
]);

/** How long the active clinic's data stays on this computer, and removing it. */
export const RETENTION_CHANNELS = {
  'retention.overview': channel<RetentionOverview>()(None),
  /** Saves the active account's settings; the answer previews the next cleanup under them. */
  'retention.setSettings': channel<RetentionOverview>()(
    Type.Object({ audioDays: Days, textDays: Days }, { additionalProperties: false }),
  ),
  /** Runs a cleanup now (or joins the one under way) and answers how it ended. */
  'retention.removeNow': channel<CleanupSummary>()(None),
  /**
   * Deletes everything this computer holds of the active clinic (its cache, audio, unfinished
   * exports, comments posted from here); the account and its settings stay.
   */
  'retention.removeEverything': channel<RemovedEverything>()(None),
  /** Keeps a record on this computer whatever its age (`keep: false` lets it go again). */
  'retention.keep': channel<boolean>()(
    Type.Object({ labelId: Uuid, keep: Type.Boolean() }, { additionalProperties: false }),
  ),
  'retention.isKept': channel<boolean>()(
    Type.Object({ labelId: Uuid }, { additionalProperties: false }),
  ),
} as const;
