import type { Label, Note } from '../../shared/api';
import type { CarryNotice, KnownSpeaker, RecordSpeakers, SpokenBy } from '../../shared/ipc';
import { spokenLines, type SpokenLine } from '../../shared/record/spoken-lines';
import { carryOver } from '../../shared/speakers/carry-over';
import {
  EMPTY_OVERLAY,
  fitOverlay,
  nameLines,
  namedSpeakers,
  transcriptVersionKey,
  type SpeakerOverlay,
} from '../../shared/speakers/overlay';
import { isProcessingContent, transcriptVersions } from '../../shared/transcript';
import type { Cache } from '../cache';
import type { NamedLineRow, StoredSpeakers } from '../cache/speakers';
import { AppError } from '../base/errors';

export interface SpeakerNamesDeps {
  /** The active account's cache, where the names live. */
  cache(): Promise<Cache>;
  /** A record as it is now: the service's answer, else the cache's (the offline policy). */
  record(labelId: string): Promise<Label>;
  now?: () => number;
}

/** A transcript version: the note, its key and its lines. */
interface Version {
  note: Note;
  key: string;
  lines: SpokenLine[];
}

export interface SpeakerSave {
  labelId: string;
  versionKey: string;
  names: SpeakerOverlay['names'];
  moves: SpeakerOverlay['moves'];
}

const versionOf = (note: Note): Version => ({
  note,
  key: transcriptVersionKey(note),
  lines: spokenLines(note.content),
});

/** Every transcript version of the record that holds words, newest first. */
const versionsOf = (label: Label): Version[] =>
  transcriptVersions(label.ownedPatientNotes)
    .filter((note) => !isProcessingContent(note.content))
    .map(versionOf);

/** The record's current transcript version, unless it is still being written. */
function currentOf(label: Label): Version | null {
  const note = transcriptVersions(label.ownedPatientNotes)[0];
  return note && !isProcessingContent(note.content) ? versionOf(note) : null;
}

/** The version's lines said by a named speaker, as the search index holds them. */
function indexedLines(lines: readonly SpokenLine[], overlay: SpeakerOverlay): NamedLineRow[] {
  const named = new Set(overlay.names.map((entry) => entry.label));
  return nameLines(lines, overlay).flatMap((line, index) =>
    line.label !== null && named.has(line.label)
      ? [{ line: index, speaker: line.speaker ?? '', role: line.role, text: line.text }]
      : [],
  );
}

/** The overlay as kept: what fits the version, names in the order their speakers first speak. */
function keptOverlay(overlay: SpeakerOverlay, lines: readonly SpokenLine[]): SpeakerOverlay {
  const fitted = fitOverlay(overlay, lines);
  const spoken = namedSpeakers(lines, fitted);
  const silent = fitted.names.filter((name) => !spoken.includes(name));
  return { names: [...spoken, ...silent], moves: fitted.moves };
}

const toAnswer = (
  labelId: string,
  current: Version | null,
  stored: StoredSpeakers[],
): RecordSpeakers => ({
  labelId,
  currentVersionKey: current?.key ?? null,
  versions: stored.map(({ versionKey, names, moves, notice, updatedAt }) => ({
    versionKey,
    names,
    moves,
    notice,
    updatedAt: new Date(updatedAt).toISOString(),
  })),
});

/**
 * Speaker names (issue 28): an overlay on a record's transcript, kept per account in its cache,
 * read and written offline too. A record read here whose current transcript version has no
 * names yet, while an earlier one has, gets the names that still fit (the carry-over rule of
 * src/shared/speakers/carry-over.ts), with a notice of what was carried and what was dropped.
 */
export class SpeakerNames {
  constructor(private readonly deps: SpeakerNamesDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** The record's names, read as it is now (the service's copy, else the cache's). */
  async get(labelId: string): Promise<RecordSpeakers> {
    return this.of(await this.deps.record(labelId));
  }

  /** The names of a record already read, its current version's carried over where needed. */
  async of(label: Label): Promise<RecordSpeakers> {
    const cache = await this.deps.cache();
    const current = currentOf(label);
    let stored = await cache.read.speakers(label.id);
    if (current && (await this.place(cache, label, current, stored)))
      stored = await cache.read.speakers(label.id);
    return toAnswer(label.id, current, stored);
  }

  /** The current version's overlay, for the outputs (export): carried over where needed. */
  async overlayOf(label: Label): Promise<SpeakerOverlay> {
    const answer = await this.of(label);
    return (
      answer.versions.find((version) => version.versionKey === answer.currentVersionKey) ??
      EMPTY_OVERLAY
    );
  }

  /**
   * Makes the stored names of the current version right: its row marked current with its lines
   * indexed, or, when it has none, the names carried over from the newest earlier version that
   * has some. True when it wrote anything.
   */
  private async place(
    cache: Cache,
    label: Label,
    current: Version,
    stored: StoredSpeakers[],
  ): Promise<boolean> {
    const own = stored.find((row) => row.versionKey === current.key);
    if (own) {
      if (own.current) return false;
      await cache.write.saveSpeakers({
        labelId: label.id,
        versionKey: current.key,
        names: own.names,
        moves: own.moves,
        notice: own.notice,
        at: own.updatedAt,
        currentLines: indexedLines(current.lines, own),
      });
      return true;
    }
    const byKey = new Map(stored.map((row) => [row.versionKey, row]));
    const earlier = versionsOf(label)
      .slice(1)
      .find((version) => {
        const row = byKey.get(version.key);
        return row !== undefined && (row.names.length > 0 || row.moves.length > 0);
      });
    if (!earlier) return false;
    const result = carryOver(earlier.lines, byKey.get(earlier.key)!, current.lines);
    const overlay = keptOverlay(result.overlay, current.lines);
    const notice: CarryNotice = {
      fromVersionKey: earlier.key,
      carried: result.carried,
      dropped: result.dropped,
      droppedMoves: result.droppedMoves,
    };
    await cache.write.saveSpeakers({
      labelId: label.id,
      versionKey: current.key,
      ...overlay,
      notice,
      at: this.now(),
      currentLines: indexedLines(current.lines, overlay),
    });
    return true;
  }

  /**
   * Replaces one version's names and moved lines (what does not fit the version is left out).
   * The version is looked for in the cached record first, so naming works offline; a version
   * the cache does not hold yet is looked for in the record as the service has it.
   */
  async save({ labelId, versionKey, names, moves }: SpeakerSave): Promise<RecordSpeakers> {
    const cache = await this.deps.cache();
    const find = (label: Label | null) =>
      label ? versionsOf(label).find((version) => version.key === versionKey) : undefined;
    let label = await cache.read.label(labelId);
    let version = find(label);
    if (!version) {
      label = await this.deps.record(labelId);
      version = find(label);
    }
    if (!label || !version) {
      throw new AppError(
        'not_found',
        'This version of the transcript is no longer on this computer, so the names were not saved. Open the recording again.',
      );
    }
    const current = currentOf(label);
    const overlay = keptOverlay({ names, moves }, version.lines);
    const previous = (await cache.read.speakers(labelId)).find(
      (row) => row.versionKey === versionKey,
    );
    await cache.write.saveSpeakers({
      labelId,
      versionKey,
      ...overlay,
      notice: previous?.notice ?? null,
      at: this.now(),
      ...(current?.key === versionKey
        ? { currentLines: indexedLines(version.lines, overlay) }
        : {}),
    });
    return toAnswer(labelId, current, await cache.read.speakers(labelId));
  }

  async dismissNotice(labelId: string, versionKey: string): Promise<RecordSpeakers> {
    const cache = await this.deps.cache();
    await cache.write.dismissSpeakerNotice(labelId, versionKey);
    const label = await cache.read.label(labelId);
    return toAnswer(labelId, label ? currentOf(label) : null, await cache.read.speakers(labelId));
  }

  async known(search: string, limit?: number): Promise<KnownSpeaker[]> {
    return (await this.deps.cache()).read.knownSpeakers(search.trim(), limit);
  }

  async spokenBy(labelIds: readonly string[]): Promise<SpokenBy[]> {
    return (await this.deps.cache()).read.spokenBy([...new Set(labelIds)]);
  }

  /**
   * Brings every named record's current version up to date from the cache (after a sync brought
   * new transcript versions, or a damaged cache was rebuilt with the names salvaged), so the
   * search index holds the current lines. Answers how many records it changed.
   */
  async refresh(): Promise<number> {
    const cache = await this.deps.cache();
    let changed = 0;
    for (const { labelId, currentVersionKey } of await cache.read.namedRecords()) {
      const label = await cache.read.label(labelId);
      const current = label ? currentOf(label) : null;
      if (!label || !current || current.key === currentVersionKey) continue;
      if (await this.place(cache, label, current, await cache.read.speakers(labelId))) changed++;
    }
    return changed;
  }
}
