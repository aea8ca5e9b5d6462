import type { CarryNotice, KnownSpeaker, SpokenBy } from '../../shared/ipc';
import type { LineMove, SpeakerName, SpeakerRole } from '../../shared/speakers/overlay';
import { all, flag, run, type Db } from '../../node-common/sql';

/**
 * Speaker names in the cache (migration 007): one overlay row per record and transcript version,
 * and the named lines of each record's current version in `speaker_lines` (full-text indexed).
 */

/** One transcript version's names as stored. */
export interface StoredSpeakers {
  versionKey: string;
  names: SpeakerName[];
  moves: LineMove[];
  notice: CarryNotice | null;
  /** The record's current version: its named lines are the ones indexed. */
  current: boolean;
  updatedAt: number;
}

/** A line of the current version said by a named speaker, as the search index holds it. */
export interface NamedLineRow {
  line: number;
  speaker: string;
  role: SpeakerRole | null;
  text: string;
}

export interface SpeakersWrite {
  labelId: string;
  versionKey: string;
  names: readonly SpeakerName[];
  moves: readonly LineMove[];
  notice: CarryNotice | null;
  at: number;
  /**
   * Given when the version is the record's current one: it becomes the record's current row, and
   * these lines replace the record's lines in the index.
   */
  currentLines?: readonly NamedLineRow[];
}

interface OverlayRow {
  version_key: string;
  names: string;
  moves: string;
  notice: string | null;
  is_current: number;
  updated_at: number;
}

const parse = <T>(json: string | null, fallback: T): T =>
  json === null ? fallback : (JSON.parse(json) as T);

export const speakerReads = {
  /** Every version of a record that has names, current first, then the latest changed. */
  speakers(db: Db, labelId: string): StoredSpeakers[] {
    return all<OverlayRow>(
      db,
      `SELECT version_key, names, moves, notice, is_current, updated_at FROM speaker_overlays
        WHERE label_id = ? ORDER BY is_current DESC, updated_at DESC`,
      labelId,
    ).map((row) => ({
      versionKey: row.version_key,
      names: parse<SpeakerName[]>(row.names, []),
      moves: parse<LineMove[]>(row.moves, []),
      notice: parse<CarryNotice | null>(row.notice, null),
      current: row.is_current === 1,
      updatedAt: row.updated_at,
    }));
  },

  /**
   * Names given on this computer (any record, any version) that contain `search` (any case),
   * each once with the role it last had, the most recently used first.
   */
  knownSpeakers(db: Db, search: string, limit = 10): KnownSpeaker[] {
    return all<{ name: string; role: SpeakerRole | null; at: number }>(
      db,
      `SELECT name.value->>'name' AS name, name.value->>'role' AS role, max(o.updated_at) AS at
         FROM speaker_overlays o, json_each(o.names) name
        WHERE instr(lower(name.value->>'name'), lower(@search)) > 0
        GROUP BY lower(name.value->>'name')
        ORDER BY at DESC, name LIMIT @limit`,
      { search, limit: Math.max(1, Math.min(50, Math.floor(limit))) },
    ).map(({ name, role, at }) => ({ name, role, lastUsedAt: new Date(at).toISOString() }));
  },

  /** The named speakers of each record's current version, for the records that have any. */
  spokenBy(db: Db, labelIds: readonly string[]): SpokenBy[] {
    return all<{ label_id: string; names: string }>(
      db,
      `SELECT label_id, names FROM speaker_overlays
        WHERE is_current = 1 AND label_id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(labelIds),
    )
      .map((row) => ({ labelId: row.label_id, speakers: parse<SpeakerName[]>(row.names, []) }))
      .filter((row) => row.speakers.length > 0);
  },

  /** Records that have names on any version, with the version whose lines are indexed. */
  namedRecords(db: Db): { labelId: string; currentVersionKey: string | null }[] {
    return all<{ label_id: string; current: string | null }>(
      db,
      `SELECT label_id, max(CASE WHEN is_current = 1 THEN version_key END) AS current
         FROM speaker_overlays GROUP BY label_id`,
    ).map((row) => ({ labelId: row.label_id, currentVersionKey: row.current }));
  },
};

export const speakerWrites = {
  /** Stores one version's names (replacing what it had); see SpeakersWrite.currentLines. */
  saveSpeakers(db: Db, write: SpeakersWrite): void {
    db.transaction(() => {
      const current = write.currentLines !== undefined;
      run(
        db,
        `INSERT INTO speaker_overlays
           (label_id, version_key, names, moves, notice, is_current, updated_at)
         VALUES (@labelId, @versionKey, @names, @moves, @notice, @current, @at)
         ON CONFLICT (label_id, version_key) DO UPDATE SET
           names = excluded.names, moves = excluded.moves, notice = excluded.notice,
           is_current = max(speaker_overlays.is_current, excluded.is_current),
           updated_at = excluded.updated_at`,
        {
          labelId: write.labelId,
          versionKey: write.versionKey,
          names: JSON.stringify(write.names),
          moves: JSON.stringify(write.moves),
          notice: write.notice === null ? null : JSON.stringify(write.notice),
          current: flag(current),
          at: write.at,
        },
      );
      if (!current) return;
      run(
        db,
        `UPDATE speaker_overlays SET is_current = (version_key = @versionKey)
          WHERE label_id = @labelId AND is_current IS NOT (version_key = @versionKey)`,
        { labelId: write.labelId, versionKey: write.versionKey },
      );
      run(db, 'DELETE FROM speaker_lines WHERE label_id = ?', write.labelId);
      run(
        db,
        `INSERT INTO speaker_lines (label_id, line, speaker, role, text)
         SELECT @labelId, value->>'line', value->>'speaker', value->>'role', value->>'text'
           FROM json_each(@lines)`,
        { labelId: write.labelId, lines: JSON.stringify(write.currentLines) },
      );
    })();
  },

  /** The carry-over notice of a version has been read. */
  dismissSpeakerNotice(db: Db, labelId: string, versionKey: string): void {
    run(
      db,
      `UPDATE speaker_overlays SET notice = NULL
        WHERE label_id = @labelId AND version_key = @versionKey`,
      { labelId, versionKey },
    );
  },
};
