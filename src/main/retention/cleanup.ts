import { rm, stat } from 'node:fs/promises';
import type { CleanupSummary } from '../../shared/ipc';
import type { AudioCache, HeldAudio } from '../audio/audio-cache';
import { damagedCopiesOf, TEXT_INDEXES, type Cache } from '../cache';

/**
 * One cleanup of an account's data on this computer (issue 29): the audio and the text older
 * than the clinic keeps them, except the records kept on this computer and those an export
 * running now reads; then nothing of what went is left in the account's files — the full-text
 * indexes merged (deleted words leave their segments), free pages given back, the WAL
 * checkpointed and truncated, damaged copies of the cache deleted.
 *
 * It runs beside the sync and the screens: each step is one small transaction in the cache's
 * writer thread (a sync's write waits behind one step at most, and reads never wait: they have
 * their own thread), and a step is asked for only when the one before has answered. Every step
 * can be repeated: a cleanup stopped anywhere (the app closing, kill -9) leaves a cache that
 * opens, and the next cleanup does what is left (the indexes to merge are marked in the same
 * transactions as the deletes).
 */

/** Where a cleanup takes records and audio from, and which to leave. */
export interface CleanupInput {
  cache: Pick<Cache, 'read' | 'write' | 'file'>;
  audio: Pick<AudioCache, 'held' | 'noteRecordStarts' | 'removeHeld'>;
  /** Records that started before this lose their text; null: text is kept for ever. */
  textBefore: number | null;
  /** Audio of records that started before this goes; null: kept for ever. */
  audioBefore: number | null;
  /** Records an export running now reads. */
  spare: readonly string[];
  now: () => number;
  signal?: AbortSignal;
  onProgress?: (progress: { done: number; total: number }) => void;
  tuning?: Partial<CleanupTuning>;
}

export interface CleanupTuning {
  /** Records removed per transaction. */
  recordsPerStep: number;
  /** Conversation transcripts emptied per transaction. */
  conversationsPerStep: number;
  /** Hub timeline minutes removed per transaction. */
  minutesPerStep: number;
  /** Pages of an index merged per step (FTS5 pages of about 4 KB). */
  mergePages: number;
  /** Free pages given back to the file system per step. */
  vacuumPages: number;
}

const DEFAULT_TUNING: CleanupTuning = {
  recordsPerStep: 50,
  conversationsPerStep: 200,
  minutesPerStep: 2000,
  mergePages: 32,
  vacuumPages: 256,
};

/** A checkpoint a reader held up is tried again this many times, this far apart. */
const CHECKPOINT_TRIES = 20;
const CHECKPOINT_PAUSE_MS = 50;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Thrown between steps when the cleanup is stopped (what it did stays done). */
class CleanupStopped extends Error {
  override readonly name = 'CleanupStopped';
}

export const isCleanupStopped = (error: unknown): boolean => error instanceof CleanupStopped;

/** Runs one cleanup to its end; answers what it removed and freed. */
export async function runCleanup(input: CleanupInput): Promise<CleanupSummary> {
  const tuning = { ...DEFAULT_TUNING, ...input.tuning };
  const { read, write } = input.cache;
  const startedAt = input.now();
  const textBytesBefore = await read.textBytes();
  const spare = new Set(input.spare);
  const check = () => {
    if (input.signal?.aborted) throw new CleanupStopped('The cleanup was stopped.');
  };

  // What goes, for the progress: the records and audio files, then each index to merge.
  const kept = new Set((await read.keptRecords()).map((record) => record.labelId));
  const audioGoing = await audioToRemove({ ...input, kept, spare });
  const preview =
    input.textBefore === null
      ? 0
      : (await read.textPreview({ before: input.textBefore, spare: input.spare })).next.records;
  let total = audioGoing.length + preview + TEXT_INDEXES.length + 1;
  let done = 0;
  const advance = (by: number) => {
    done += by;
    total = Math.max(total, done);
    input.onProgress?.({ done, total });
  };
  input.onProgress?.({ done, total });

  // Audio first: its age comes from its record, whose text may go next.
  let audioBytes = 0;
  for (const audio of audioGoing) {
    check();
    await input.audio.removeHeld(audio);
    audioBytes += audio.bytes;
    advance(1);
  }

  let records = 0;
  if (input.textBefore !== null) {
    const before = input.textBefore;
    for (let step = { more: true }; step.more;) {
      check();
      const removed = await write.removeRecords({
        before,
        spare: input.spare,
        limit: tuning.recordsPerStep,
        at: input.now(),
      });
      records += removed.removed;
      advance(removed.removed);
      step = removed;
    }
    for (let step = { more: true }; step.more;) {
      check();
      step = await write.removeConversationText({
        before,
        limit: tuning.conversationsPerStep,
        at: input.now(),
      });
    }
    for (let step = { more: true }; step.more;) {
      check();
      step = await write.removeTimelines({ before, limit: tuning.minutesPerStep });
    }
  }

  // Deleted words leave the indexes only when their segments are merged.
  if (await read.indexesToMerge()) {
    for (const index of TEXT_INDEXES) {
      for (let first = true; ; first = false) {
        check();
        if (!(await write.mergeIndexStep({ index, pages: tuning.mergePages, first }))) break;
      }
      advance(1);
    }
    await write.indexesMerged(input.now());
  } else advance(TEXT_INDEXES.length);

  while ((await write.releaseFreePages(tuning.vacuumPages)) > 0) check();
  await checkpoint(input.cache);
  const damagedBytes = await deleteDamagedCopies(input.cache.file);
  advance(1);

  return {
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: new Date(input.now()).toISOString(),
    records,
    audioFiles: audioGoing.length,
    textBytes: Math.max(0, textBytesBefore - (await read.textBytes())) + damagedBytes,
    audioBytes,
  };
}

/**
 * The cached audio old enough to go. Its age is its record's start, noted in the audio cache
 * here, before the record's text can go; audio whose record this computer never held, or no
 * longer holds, has no known age and goes (it can be downloaded again). Audio being played,
 * audio of kept records and of records an export reads stays.
 */
export async function audioToRemove(input: {
  cache: Pick<Cache, 'read'>;
  audio: Pick<AudioCache, 'held' | 'noteRecordStarts'>;
  audioBefore: number | null;
  kept: ReadonlySet<string>;
  spare: ReadonlySet<string>;
}): Promise<HeldAudio[]> {
  const unknown = input.audio
    .held()
    .flatMap((audio) => (audio.recordStartMs === null && audio.labelId ? [audio.labelId] : []));
  if (unknown.length > 0) {
    await input.audio.noteRecordStarts(await input.cache.read.recordStarts(unknown));
  }
  const { audioBefore } = input;
  if (audioBefore === null) return [];
  return input.audio.held().filter(
    (audio) =>
      (audio.recordStartMs ?? Number.NEGATIVE_INFINITY) < audioBefore &&
      !audio.playing &&
      // Of no known record (IndexEntry.labelId): no known age either.
      (audio.labelId === null ||
        (!input.kept.has(audio.labelId) && !input.spare.has(audio.labelId))),
  );
}

/**
 * The WAL copied into the database and truncated to nothing. A reader in the middle of a query
 * holds an older snapshot and keeps the checkpoint from finishing: it is tried again shortly.
 */
async function checkpoint(cache: CleanupInput['cache']): Promise<void> {
  for (let tries = 1; ; tries++) {
    if (!(await cache.write.checkpoint()).busy) return;
    if (tries === CHECKPOINT_TRIES)
      throw new Error('The cache was too busy to be checkpointed; the next cleanup does it.');
    await pause(CHECKPOINT_PAUSE_MS);
  }
}

/** Deletes the damaged copies of the cache (they hold text of any age); answers their bytes. */
async function deleteDamagedCopies(file: string): Promise<number> {
  let bytes = 0;
  for (const copy of damagedCopiesOf(file)) {
    bytes += (await stat(copy).catch(() => null))?.size ?? 0;
    await rm(copy, { force: true });
  }
  return bytes;
}
