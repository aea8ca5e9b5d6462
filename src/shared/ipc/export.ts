import { Type } from '@sinclair/typebox';
import { Uuid } from '../api';
import { channel, None } from './channel';
import { EXPORT_MAX_LABELS } from './constants';
import { LabelFilterInput } from './recordings';

/** A folder the user picked for exports; main remembers it, the renderer refers to it by id. */
export interface ExportFolder {
  folderId: string;
  path: string;
}

export type ExportFileState =
  'waiting' | 'downloading' | 'exported' | 'no_audio' | 'skipped' | 'failed' | 'cancelled';

/** An export's progress (the export.progress event), per file and overall. */
export interface ExportProgressEvent {
  exportId: string;
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  file: { labelId: string; state: ExportFileState; bytesDone: number; bytesTotal: number | null };
}

/** One recording of a finished export, as the manifest lists it. */
export interface ExportRow {
  labelId: string;
  patient: string | null;
  type: string | null;
  status: Exclude<ExportFileState, 'waiting' | 'downloading'>;
  file: string | null;
  bytes: number | null;
  sha256: string | null;
  /** The text files written beside the audio: transcript, subtitles, clinical note. */
  textFiles: string[];
  /** Who spoke, as named on this computer; null when no speaker is named. */
  speakers: string | null;
  error: string | null;
}

export interface ExportSummary {
  exportId: string;
  status: 'completed' | 'cancelled';
  folder: string;
  rows: ExportRow[];
  /** The manifest's files in the folder (manifest.csv and manifest.json, or numbered names). */
  manifestFiles: string[];
  /** A resumed export's folder, registered again so that a retry can go there (export.run). */
  folderId?: string;
}

/** An export that stopped before it finished (the app closed or crashed, the disk filled up). */
export interface UnfinishedExport {
  /** The id of the export that started it: export.resume and export.discard name it by this. */
  journalId: string;
  folder: string;
  /** Recordings in the export, and how many of them are finished. */
  total: number;
  done: number;
  startedAt: string;
}

const ExportId = Uuid;

/** Export of recordings to a folder: picking the folder, runs, and resuming stopped ones. */
export const EXPORT_CHANNELS = {
  /** Where the shell has a folder dialog (Electron): it; null when the user cancels it. */
  'export.chooseFolder': channel<ExportFolder | null>()(None),
  /** Where it has none (the browser shell): a typed absolute path to an existing folder (checked writable). */
  'export.useFolder': channel<ExportFolder>()(
    Type.Object(
      { path: Type.String({ minLength: 1, maxLength: 4096 }) },
      { additionalProperties: false },
    ),
  ),
  /**
   * Exports recordings (by id, or every recording matching a filter) into a chosen folder;
   * answers when done or cancelled, with export.progress events meanwhile.
   */
  'export.run': channel<ExportSummary>()(
    Type.Object(
      {
        exportId: ExportId,
        folderId: Uuid,
        labels: Type.Union([
          Type.Object(
            { ids: Type.Array(Uuid, { minItems: 1, maxItems: EXPORT_MAX_LABELS }) },
            { additionalProperties: false },
          ),
          Type.Object({ filter: LabelFilterInput }, { additionalProperties: false }),
        ]),
        transcripts: Type.Boolean(),
        onExists: Type.Union([
          Type.Literal('keep-both'),
          Type.Literal('replace'),
          Type.Literal('skip'),
        ]),
      },
      { additionalProperties: false },
    ),
  ),
  'export.cancel': channel<null>()(
    Type.Object({ exportId: ExportId }, { additionalProperties: false }),
  ),
  /** Opens the folder of an export that finished (never a path from the renderer). */
  'export.openFolder': channel<null>()(
    Type.Object({ exportId: ExportId }, { additionalProperties: false }),
  ),
  /** The active account's exports that stopped before they finished (after a restart too). */
  'export.unfinished': channel<UnfinishedExport[]>()(None),
  /**
   * Goes on with an unfinished export, in its folder with its options: the recordings it had
   * finished are not exported again, and its manifest lists every recording. exportId names this
   * run (its export.progress events, cancel, openFolder).
   */
  'export.resume': channel<ExportSummary>()(
    Type.Object({ exportId: ExportId, journalId: ExportId }, { additionalProperties: false }),
  ),
  /** Gives up an unfinished export: the files it exported stay; its partial downloads go. */
  'export.discard': channel<null>()(
    Type.Object({ journalId: ExportId }, { additionalProperties: false }),
  ),
} as const;
