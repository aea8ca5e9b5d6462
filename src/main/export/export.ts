import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Label } from '../../shared/api';
import { noteKinds } from '../../shared/record/notes';
import { notePlainText, parseSoap } from '../../shared/record/soap';
import { timedTranscriptText, type TimedLine } from '../../shared/record/timed-transcript';
import { toWebVtt } from '../../shared/record/webvtt';
import { spokenLines } from '../../shared/record/spoken-lines';
import { nameSpeakersInNote, namedTranscriptText } from '../../shared/speakers/outputs';
import {
  EMPTY_OVERLAY,
  nameLines,
  speakerLegend,
  type SpeakerOverlay,
} from '../../shared/speakers/overlay';
import { SOAP_NOTE_TYPE } from '../../shared/api/values';
import { currentTranscript, isProcessingContent } from '../../shared/transcript';
import { ApiError } from '../service-client/errors';
import type { AudioSource } from '../audio/audio-stream';
import { AudioError, isAudioError, type AudioErrorKind } from '../audio/errors';
import { assertWritableFolder, chooseName, writeNewFile, type OnExists } from '../audio/files';
import { removeQuietly } from '../base/atomic-write';
import { labelFileStem, safeFileName, withExtension } from '../audio/names';
import { discardExportPartial, exportAudio, type ExportedAudio } from './export-audio';

/**
 * Exports labels' audio into a folder the user picked: bounded concurrency, per-file and overall
 * progress, cancellable; optionally beside each audio file its transcript (.txt, with times and
 * speakers where known), its transcript as WebVTT subtitles (.vtt, where line times are known)
 * and its clinical note (.soap.txt); and a manifest (manifest.csv and manifest.json) with each
 * label's id, patient, type, times, and every file written with its size and SHA-256 (the audio's
 * read back as it streamed in, export-audio.ts). A label without audio is a manifest row, not a
 * failure of the export; a folder that cannot take files (missing, read-only, full) stops it with
 * a typed error, and no file with a final name is ever partial.
 */

type ExportStatus = 'exported' | 'no_audio' | 'skipped' | 'failed' | 'cancelled';

export interface ManifestRow {
  labelId: string;
  patient: string | null;
  type: string | null;
  fromTime: string | null;
  toTime: string | null;
  status: ExportStatus;
  /** The audio file's name in the folder. */
  file: string | null;
  bytes: number | null;
  sha256: string | null;
  contentType: string | null;
  transcriptFile: string | null;
  transcriptSha256?: string | null;
  /** The transcript as WebVTT subtitles, where its lines have times (hub records). */
  subtitlesFile?: string | null;
  subtitlesSha256?: string | null;
  /** The current SOAP note as plain text with its section headings. */
  clinicalNoteFile?: string | null;
  clinicalNoteSha256?: string | null;
  /** Who spoke, as named on this computer ("Dr Marsh (vet), Mrs Patel (owner)"). */
  speakers?: string | null;
  /** Why a label was not exported, in words. */
  error: string | null;
}

interface ExportFileProgress {
  labelId: string;
  state: 'waiting' | 'downloading' | ExportStatus;
  bytesDone: number;
  bytesTotal: number | null;
}

export interface ExportProgress {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  /** The sum of the sizes known so far (each file's is known once its download starts). */
  bytesTotal: number;
  /** The file whose progress changed. */
  file: ExportFileProgress;
}

/**
 * Where an export reads from: the labels and their audio, a hub record's transcript lines with
 * their times (null where there are none, or they cannot be had), and the names given to its
 * transcript's speakers on this computer.
 */
export type ExportSource = AudioSource & {
  transcriptLines?(label: Label): Promise<TimedLine[] | null>;
  speakers?(label: Label): Promise<SpeakerOverlay>;
};

export interface ExportOptions {
  folder: string;
  /**
   * Write the record's notes beside each audio file: the current transcript (`.txt`, and `.vtt`
   * where its lines have times) and the current SOAP note (`.soap.txt`).
   */
  transcripts?: boolean;
  /** Downloads at once. Default 3. */
  concurrency?: number;
  /** A name already taken: keep both (the default: "name (2).wav"), replace it, or skip the label. */
  onExists?: 'keep-both' | 'replace' | 'skip';
  signal?: AbortSignal;
  onProgress?: (progress: ExportProgress) => void;
  /** Time stamps the manifest. */
  now?: () => Date;
  /**
   * Rows an earlier run of this export finished (a resume): those recordings are not exported
   * again, and the manifest lists them in their place. Given at all (even empty), it also means a
   * crash may have left files this export wrote but never recorded: the same bytes already under
   * the name it chose first are taken as its own rather than kept beside a numbered copy.
   */
  done?: readonly ManifestRow[];
  /** Each row once it is final (the journal keeps the finished ones). */
  onRow?: (row: ManifestRow) => Promise<void> | void;
}

export interface ExportResult {
  /** 'cancelled' when the signal stopped it: the rows say what was exported before. */
  status: 'completed' | 'cancelled';
  folder: string;
  rows: ManifestRow[];
  manifestCsv: string;
  manifestJson: string;
}

/** Errors that concern the folder, not one label: they stop the whole export. */
const FOLDER_ERRORS: ReadonlySet<AudioErrorKind> = new Set([
  'folder_missing',
  'folder_not_writable',
  'disk_full',
  'io_error',
]);

const CSV_COLUMNS: [keyof ManifestRow, string][] = [
  ['labelId', 'label_id'],
  ['patient', 'patient'],
  ['type', 'type'],
  ['fromTime', 'from_time'],
  ['toTime', 'to_time'],
  ['status', 'status'],
  ['file', 'file'],
  ['bytes', 'size_bytes'],
  ['sha256', 'sha256'],
  ['contentType', 'content_type'],
  ['transcriptFile', 'transcript_file'],
  ['transcriptSha256', 'transcript_sha256'],
  ['subtitlesFile', 'subtitles_file'],
  ['subtitlesSha256', 'subtitles_sha256'],
  ['clinicalNoteFile', 'clinical_note_file'],
  ['clinicalNoteSha256', 'clinical_note_sha256'],
  ['speakers', 'speakers'],
  ['error', 'error'],
];

/**
 * One CSV field (RFC 4180). Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR
 * first: a patient named "=HYPERLINK(…)") is prefixed with an apostrophe (OWASP CSV injection).
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The manifest as CSV: a BOM (so spreadsheets read UTF-8 names), a header, CRLF lines. */
export function manifestCsv(rows: readonly ManifestRow[]): string {
  const lines = [
    CSV_COLUMNS.map(([, header]) => header).join(','),
    ...rows.map((row) => CSV_COLUMNS.map(([key]) => csvField(row[key])).join(',')),
  ];
  return `\ufeff${lines.join('\r\n')}\r\n`;
}

const rowOf = (labelId: string, label: Label | undefined): ManifestRow => ({
  labelId,
  patient: label?.patient?.name ?? null,
  type: label?.type ?? null,
  fromTime: label?.fromTime ?? null,
  toTime: label?.toTime ?? null,
  status: 'failed',
  file: null,
  bytes: null,
  sha256: null,
  contentType: null,
  transcriptFile: null,
  transcriptSha256: null,
  subtitlesFile: null,
  subtitlesSha256: null,
  clinicalNoteFile: null,
  clinicalNoteSha256: null,
  speakers: null,
  error: null,
});

const sha256Of = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The text files written beside a label's audio file: extension, content, manifest columns. */
interface Companion {
  extension: 'txt' | 'vtt' | 'soap.txt';
  text: string;
  file: 'transcriptFile' | 'subtitlesFile' | 'clinicalNoteFile';
  sha256: 'transcriptSha256' | 'subtitlesSha256' | 'clinicalNoteSha256';
}

/**
 * A label's notes as the files an export writes beside its audio, with the names given to its
 * speakers: in the transcript's lines, as WebVTT voices, and at the head of the clinical note.
 */
async function companionsOf(
  source: ExportSource,
  label: Label,
): Promise<{ companions: Companion[]; speakers: string | null }> {
  const companions: Companion[] = [];
  const note = currentTranscript(label.ownedPatientNotes);
  const ready = note !== undefined && !isProcessingContent(note.content);
  const overlay = (ready && (await source.speakers?.(label))) || EMPTY_OVERLAY;
  const legend = ready ? speakerLegend(spokenLines(note.content), overlay) : '';
  if (ready) {
    const lines = (await source.transcriptLines?.(label)) ?? null;
    const named = lines && nameLines(lines, overlay);
    const durationMs = Date.parse(label.toTime) - Date.parse(label.fromTime);
    companions.push({
      extension: 'txt',
      text: named
        ? timedTranscriptText(named)
        : `${namedTranscriptText(note.content, overlay).trimEnd()}\n`,
      file: 'transcriptFile',
      sha256: 'transcriptSha256',
    });
    if (named && durationMs > 0) {
      companions.push({
        extension: 'vtt',
        text: toWebVtt(named, durationMs),
        file: 'subtitlesFile',
        sha256: 'subtitlesSha256',
      });
    }
  }
  const soap = noteKinds(label.ownedPatientNotes).find((kind) => kind.types[0] === SOAP_NOTE_TYPE);
  const soapText = soap
    ? notePlainText(nameSpeakersInNote(parseSoap(soap.current.content), overlay))
    : '';
  if (soapText !== '') {
    companions.push({
      extension: 'soap.txt',
      text: `${legend ? `Speakers: ${legend}\n\n` : ''}${soapText.trimEnd()}\n`,
      file: 'clinicalNoteFile',
      sha256: 'clinicalNoteSha256',
    });
  }
  return { companions, speakers: legend || null };
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

const messageOf = (error: unknown) =>
  error instanceof ApiError || error instanceof AudioError
    ? error.message
    : error instanceof Error
      ? error.message
      : String(error);

/**
 * A file this export just wrote under a numbered name ("a (3).wav") when an earlier name of the
 * same stem ("a.wav", "a (2).wav") holds the same content (the same SHA-256, or the same text):
 * the earlier file is kept and the copy removed — a run stopped after writing a file but before
 * its journal said so writes it again on resume, under the next number. Answers the name the
 * export's file has now. `pairedWith`: the name the earlier file must have to be taken (a
 * transcript goes with its audio file's name).
 */
async function adoptIdentical(
  folder: string,
  name: string,
  content: { sha256: string | null } | { text: string },
  pairedWith?: string,
): Promise<string> {
  const numbered = /^(.*) \((\d+)\)(\.[^.]*)?$/.exec(name);
  if (!numbered) return name;
  const [, stem, number, extension = ''] = numbered;
  const earlierNames = [
    `${stem}${extension}`,
    ...Array.from({ length: Number(number) - 2 }, (_, i) => `${stem} (${i + 2})${extension}`),
  ].filter((earlier) => pairedWith === undefined || earlier === pairedWith);
  for (const earlierName of earlierNames) {
    const earlier = join(folder, earlierName);
    const identical = await (
      'text' in content
        ? readFile(earlier, 'utf8').then((text) => text === content.text)
        : sha256OfFile(earlier).then((hash) => hash === content.sha256)
    ).catch(() => false);
    if (!identical) continue;
    await removeQuietly(join(folder, name));
    return earlierName;
  }
  return name;
}

/** Exports the labels (ids; each fetched with its notes) into `options.folder`. */
export async function exportLabels(
  source: ExportSource,
  labelIds: readonly string[],
  options: ExportOptions,
): Promise<ExportResult> {
  const folder = resolve(options.folder);
  const ids = [...new Set(labelIds)];
  await assertWritableFolder(folder);

  // One controller for the whole export: the caller's cancel, or a folder error, stops every file.
  const stop = new AbortController();
  const onCancel = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCancel, { once: true });
  if (options.signal?.aborted) stop.abort(options.signal.reason);
  let fatal: AudioError | undefined;

  const done = new Map((options.done ?? []).map((row) => [row.labelId, row]));
  const resuming = options.done !== undefined;
  const files = new Map<string, ExportFileProgress>(
    ids.map((labelId) => {
      const row = done.get(labelId);
      const file: ExportFileProgress = row
        ? { labelId, state: row.status, bytesDone: row.bytes ?? 0, bytesTotal: row.bytes }
        : { labelId, state: 'waiting', bytesDone: 0, bytesTotal: null };
      return [labelId, file];
    }),
  );
  let filesDone = ids.filter((labelId) => done.has(labelId)).length;
  const report = (file: ExportFileProgress) => {
    if (!options.onProgress) return;
    let bytesDone = 0;
    let bytesTotal = 0;
    for (const each of files.values()) {
      bytesDone += each.bytesDone;
      bytesTotal += each.bytesTotal ?? 0;
    }
    options.onProgress({
      filesDone,
      filesTotal: ids.length,
      bytesDone,
      bytesTotal,
      file: { ...file },
    });
  };
  const onExists: OnExists =
    options.onExists === 'skip' ? 'ask' : (options.onExists ?? 'keep-both');

  async function exportOne(labelId: string): Promise<ManifestRow> {
    const file = files.get(labelId)!;
    let label: Label | undefined;
    let row = rowOf(labelId, undefined);
    try {
      if (stop.signal.aborted) throw new AudioError('cancelled');
      label = await source.get(labelId, { signal: stop.signal });
      row = rowOf(labelId, label);
      const { companions, speakers } = options.transcripts
        ? await companionsOf(source, label)
        : { companions: [], speakers: null };
      row.speakers = speakers;
      file.state = 'downloading';
      report(file);
      let audio: ExportedAudio | undefined;
      try {
        audio = await exportAudio(source, labelId, {
          folder,
          onExists,
          // Named by the app, in plain words (patient, time, kind), not by the service's type.
          stem: labelFileStem(label, labelId),
          companions: companions.map((companion) => companion.extension),
          signal: stop.signal,
          onProgress: ({ bytesDone, bytesTotal }) => {
            file.bytesDone = bytesDone;
            file.bytesTotal = bytesTotal;
            report(file);
          },
        });
        file.bytesDone = file.bytesTotal = audio.bytes;
        const fileName = resuming
          ? await adoptIdentical(folder, audio.name, { sha256: audio.sha256 })
          : audio.name;
        Object.assign(row, {
          status: 'exported',
          file: fileName,
          bytes: audio.bytes,
          sha256: audio.sha256,
          contentType: audio.contentType,
        });
      } catch (error) {
        if (!isAudioError(error, 'no_audio')) throw error;
        row.status = 'no_audio';
        row.error = error.message;
      }
      for (const { extension, text, file: fileKey, sha256 } of companions) {
        const name = audio
          ? withExtension(row.file ?? audio.name, extension)
          : safeFileName(null, extension, labelFileStem(label, labelId));
        let written = await writeNewFile(folder, name, text, onExists);
        if (resuming) {
          const paired = row.file === null ? undefined : withExtension(row.file, extension);
          written = await adoptIdentical(folder, written, { text }, paired);
        }
        row[fileKey] = written;
        row[sha256] = sha256Of(text);
      }
    } catch (error) {
      await discardExportPartial(folder, labelId).catch(() => undefined);
      if (stop.signal.aborted && !fatal) {
        row.status = 'cancelled';
      } else if (isAudioError(error, 'file_exists')) {
        row.status = 'skipped';
        row.error = `${error.fileName ?? 'The file'} already exists.`;
      } else if (error instanceof AudioError && FOLDER_ERRORS.has(error.kind)) {
        fatal ??= error;
        stop.abort(error);
        row.error = error.message;
      } else {
        row.error = messageOf(error);
      }
    }
    file.state = row.status;
    filesDone++;
    report(file);
    await options.onRow?.(row);
    return row;
  }

  const rows: ManifestRow[] = new Array<ManifestRow>(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const index = next++;
      const labelId = ids[index]!;
      rows[index] = done.get(labelId) ?? (await exportOne(labelId));
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 3, ids.length));
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    options.signal?.removeEventListener('abort', onCancel);
  }
  if (fatal) throw fatal;

  const exportedAt = (options.now?.() ?? new Date()).toISOString();
  const manifestOnExists: OnExists = onExists === 'replace' ? 'replace' : 'keep-both';
  const csvName = await chooseName(folder, 'manifest.csv', manifestOnExists, ['json']);
  const manifestCsvName = await writeNewFile(folder, csvName, manifestCsv(rows), manifestOnExists);
  const json = JSON.stringify({ exportedAt, app: 'Earmark', labels: rows }, null, 2);
  const manifestJsonName = await writeNewFile(
    folder,
    withExtension(manifestCsvName, 'json'),
    `${json}\n`,
    manifestOnExists,
  ).catch(async (error: unknown) => {
    // The manifest is both files or neither (the disk may fill up between them).
    await removeQuietly(join(folder, manifestCsvName)).catch(() => undefined);
    throw error;
  });
  return {
    status: options.signal?.aborted ? 'cancelled' : 'completed',
    folder,
    rows,
    manifestCsv: join(folder, manifestCsvName),
    manifestJson: join(folder, manifestJsonName),
  };
}
