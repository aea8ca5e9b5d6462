import { join, resolve } from 'node:path';
import { AudioStream, type AudioSource } from '../audio/audio-stream';
import { fileErrorOf, isAudioError } from '../audio/errors';
import { chooseName, type OnExists } from '../audio/files';
import { extensionFor, idForFileName, safeFileName } from '../audio/names';
import { discardPartialFile, PartialFile } from '../audio/partial-file';

/**
 * One recording's audio into an export folder, through the app's one download engine
 * (audio/audio-stream.ts): streamed into a hidden partial file in that folder, resumed with Range
 * after a dropped connection or a crash of the app, given its final name only once whole and
 * flushed, never over a file the user has unless `onExists` says so, with the SHA-256 of the file
 * (read back from the disk) for the manifest.
 */

export interface ExportAudioProgress {
  bytesDone: number;
  /** Null until the service has said how long the file is. */
  bytesTotal: number | null;
}

export interface ExportAudioOptions {
  /** Where the file goes; it must exist. The partial file is written here too. */
  folder: string;
  /** The file's stem: the extension comes from the audio's Content-Type. */
  stem: string;
  /** When the final name is taken: 'ask' rejects with file_exists before a byte is written. */
  onExists: OnExists;
  /** Extensions that must be free beside the file too (its transcript: ['txt']). */
  companions?: readonly string[];
  signal?: AbortSignal;
  onProgress?: (progress: ExportAudioProgress) => void;
  /** The engine's tuning (tests): flushes, waits and give-up counts (audio-stream.ts). */
  tuning?: {
    checkpointBytes?: number;
    retryDelayMs?: number;
    maxStalls?: number;
    maxInterruptions?: number;
  };
}

export interface ExportedAudio {
  /** The final file: whole, flushed, with its final name. */
  path: string;
  name: string;
  bytes: number;
  contentType: string;
  /** Hex SHA-256 of the file, read back from the disk once it was whole. */
  sha256: string;
}

/** The hidden partial file of a label's audio in an export folder: never the final name. */
export const exportPartialPathOf = (folder: string, labelId: string) =>
  join(resolve(folder), `.${idForFileName(labelId)}.earmark-partial`);

/** Removes a label's partial download from an export folder (an export that will not resume it). */
export const discardExportPartial = (folder: string, labelId: string): Promise<void> =>
  discardPartialFile(exportPartialPathOf(folder, labelId));

// One download of a given partial file at a time in this process (later calls wait).
const downloading = new Map<string, Promise<unknown>>();
async function oneAtATime<T>(key: string, run: () => Promise<T>): Promise<T> {
  const before = downloading.get(key) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(run);
  downloading.set(key, mine);
  try {
    return await mine;
  } finally {
    if (downloading.get(key) === mine) downloading.delete(key);
  }
}

/**
 * Downloads a label's audio into `options.folder`. A cancellation, a failure or a crash leaves
 * the partial file (with what the service said of it, and the byte ranges flushed): the next
 * call for the same label and folder resumes it.
 */
export function exportAudio(
  source: AudioSource,
  labelId: string,
  options: ExportAudioOptions,
): Promise<ExportedAudio> {
  const folder = resolve(options.folder);
  const partial = exportPartialPathOf(folder, labelId);
  return oneAtATime(partial, async () => {
    // The file becomes the user's, to hand on: the mode of any new file (the umask decides).
    const file = await PartialFile.open(partial, labelId, { mode: 0o644 }).catch(
      (error: unknown) => {
        throw fileErrorOf(error, partial);
      },
    );
    const { onExists, companions = [] } = options;
    let name = '';
    let exported: ExportedAudio | undefined;
    const stream = new AudioStream({
      labelId,
      file,
      source: () => Promise.resolve(source),
      digest: { sha256: true, peaks: false },
      // Named once the service says what the audio is (its extension): a taken name is told
      // before the body is downloaded.
      check: async ({ contentType }) => {
        const extension = extensionFor(contentType) ?? 'bin';
        name = await chooseName(
          folder,
          safeFileName(options.stem, extension, labelId),
          onExists,
          companions,
        );
      },
      publish: async (whole, { sha256 }) => {
        for (let tries = 0; ; tries++) {
          try {
            await whole.publish(join(folder, name), { replace: onExists === 'replace' });
            break;
          } catch (error) {
            // Someone took the name since it was chosen: keep-both picks the next one.
            const again =
              isAudioError(error, 'file_exists') && onExists === 'keep-both' && tries < 5;
            if (!again) throw fileErrorOf(error, join(folder, name));
            name = await chooseName(folder, name, onExists, companions);
          }
        }
        const facts = whole.facts!;
        exported = {
          path: join(folder, name),
          name,
          bytes: facts.total,
          contentType: facts.contentType,
          sha256: sha256!,
        };
      },
      ...options.tuning,
    });
    const stop = options.onProgress
      ? stream.onProgress(({ bytesDone, bytesTotal }) =>
          options.onProgress!({ bytesDone, bytesTotal }),
        )
      : undefined;
    let failure: unknown;
    try {
      await stream.untilWhole(options.signal);
    } catch (error) {
      failure = error;
    } finally {
      stop?.();
      // Stops the filling if it did not end (a cancel, a failure), and waits for it: a file
      // being placed under its name as the cancel came is placed whole.
      await stream.close();
    }
    // Placed, it is exported, whatever came meanwhile: never a file in the folder left unlisted
    // (a cancel read before the placing finished reported it cancelled, and a retry wrote a copy).
    if (exported) return exported;
    // The partial file stays for a resume, unless the service never described the file (nothing
    // to resume) or the disk is full (it holds the space the user needs).
    if (!file.facts || isAudioError(failure, 'disk_full')) await discardPartialFile(partial);
    throw failure;
  });
}
