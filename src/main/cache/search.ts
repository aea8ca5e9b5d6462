import type { ConversationStatus, RecordType } from '../../shared/api';
import type { SearchHit, SearchKind, SearchLabel, SnippetPart } from '../../shared/search';
import type { SpeakerRole } from '../../shared/speakers/overlay';
import { all, type Db } from '../../node-common/sql';

/**
 * Full-text search over the cache (FTS5, migrations 002, 007, 009 and 011). Hits come newest first
 * (see `search`); snippets come back as parts marked hit or not, never as markup: the renderer
 * shows each part as text and styles the hits.
 */

export type { SearchHit, SnippetPart };
const SEARCH_KINDS: readonly SearchKind[] = ['patient', 'note', 'conversation', 'speaker'];

export interface SearchOptions {
  /** At most this many hits (1–200, default 20). */
  limit?: number;
  /** Which indexes to search (all by default). */
  kinds?: readonly SearchKind[];
  /** Include replaced note versions (default true); they come after every current hit. */
  history?: boolean;
}

export interface SearchResults {
  /** The FTS5 expression the words became ("" when they held nothing to search for). */
  expression: string;
  hits: SearchHit[];
}

const MARK_START = '\u0002';
const MARK_END = '\u0003';
const SNIPPET_TOKENS = 12;
const MAX_LIMIT = 200;

/**
 * The user's words as FTS5 strings: each word (or "quoted phrase") a quoted FTS5 string, so no
 * input is ever FTS5 syntax; the last word also matches as a prefix while it is being typed.
 */
function ftsTerms(input: string): string[] {
  const terms: string[] = [];
  const pattern = /"([^"]*)"?|(\S+)/g;
  let lastBare = -1;
  for (let match = pattern.exec(input); match; match = pattern.exec(input)) {
    const text = [...(match[1] ?? match[2] ?? '')]
      .map((char) => (char < ' ' ? ' ' : char))
      .join('');
    if (!/[\p{L}\p{N}]/u.test(text)) continue;
    terms.push(`"${text.replaceAll('"', '""')}"`);
    lastBare = match[2] !== undefined ? terms.length - 1 : -1;
  }
  if (lastBare === terms.length - 1 && lastBare >= 0 && !/\s$/.test(input)) {
    terms[lastBare] += '*';
  }
  return terms;
}

/** The user's words as an FTS5 expression: every word must occur. */
export const ftsExpression = (input: string): string => ftsTerms(input).join(' ');

/** Splits a snippet marked with \u0002…\u0003 into parts. */
export function snippetParts(marked: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let hit = false;
  let text = '';
  const flush = () => {
    if (text !== '') parts.push({ text, hit });
    text = '';
  };
  for (const char of marked) {
    if (char === MARK_START || char === MARK_END) {
      flush();
      hit = char === MARK_START;
    } else {
      text += char;
    }
  }
  flush();
  return parts;
}

/** A row of an index with its snippet. */
interface Found {
  key: number;
  snippet: string;
}

interface LabelColumns {
  label_id: string;
  label_type: RecordType;
  from_ms: number;
  to_ms: number;
  patient_name: string | null;
}

const toLabel = (row: LabelColumns): SearchLabel => ({
  id: row.label_id,
  type: row.label_type,
  fromTime: new Date(row.from_ms).toISOString(),
  toTime: new Date(row.to_ms).toISOString(),
  patientName: row.patient_name,
});

const snippetOf = (index: string, column = 0) =>
  `snippet(${index}, ${column}, char(2), char(3), '…', ${SNIPPET_TOKENS}) AS snippet`;

/**
 * The newest `limit` matches of an index keyed by time, with their snippets. Its rowids are keys
 * in time order, newest first (migration 009), so FTS5 reads the matches in the order they are
 * shown and stops after `limit`: a snippet for each of those only, however many rows match.
 */
const newest = (
  db: Db,
  index: 'notes_fts' | 'recent_notes_fts' | 'history_fts' | 'patients_fts',
  expression: string,
  limit: number,
): Found[] =>
  all<Found>(
    db,
    `SELECT rowid AS key, ${snippetOf(index)} FROM ${index}
      WHERE ${index} MATCH @expression ORDER BY rowid LIMIT @limit`,
    { expression, limit },
  );

interface NoteColumns extends LabelColumns {
  search_key: number;
  type: string;
  created_at: string;
  is_current: number;
}

function noteColumns(db: Db, keys: number[]): Map<number, NoteColumns> {
  return new Map(
    all<NoteColumns>(
      db,
      `SELECT n.search_key, n.type, n.created_at, n.is_current, n.label_id,
              l.type AS label_type, l.from_ms, l.to_ms, l.patient_name
         FROM notes n JOIN labels l ON l.id = n.label_id
        WHERE n.search_key IN (SELECT value FROM json_each(?))`,
      JSON.stringify(keys),
    ).map((row) => [row.search_key, row]),
  );
}

function noteHits(found: Found[], columns: Map<number, NoteColumns>): SearchHit[] {
  return found.flatMap(({ key, snippet }): SearchHit[] => {
    const row = columns.get(key);
    if (!row) return [];
    return [
      {
        kind: 'note',
        label: toLabel(row),
        noteType: row.type,
        noteCreatedAt: row.created_at,
        current: row.is_current === 1,
        snippet: snippetParts(snippet),
      },
    ];
  });
}

/**
 * The newest `limit` current notes that match. A word being typed (a prefix, "vacc"*) is asked
 * of the newest notes first (migration 011): FTS5 reads every doclist of the words a prefix
 * starts before its first match, so over the whole history it costs what the history holds.
 * The newest notes are every current note keyed up to a bound, so when they hold `limit`
 * matches those are the newest of all; when they hold fewer, every note is asked.
 */
function newestCurrentNotes(db: Db, expression: string, limit: number): Found[] {
  if (expression.endsWith('*')) {
    const recent = newest(db, 'recent_notes_fts', expression, limit);
    if (recent.length === limit) return recent;
  }
  return newest(db, 'notes_fts', expression, limit);
}

/** Current versions have their own index, so finding them needs no join. */
function currentNotes(db: Db, expression: string, limit: number): SearchHit[] {
  const found = newestCurrentNotes(db, expression, limit);
  return noteHits(
    found,
    noteColumns(
      db,
      found.map((r) => r.key),
    ),
  );
}

/**
 * Replaced versions that match, for labels none of whose current notes match: the current
 * version wins, and an old one shows (as history) only when it alone holds the words. One per
 * label, its newest.
 */
function historyNotes(db: Db, expression: string, limit: number): SearchHit[] {
  const found = newest(db, 'history_fts', expression, limit * 4);
  if (found.length === 0) return [];
  const columns = noteColumns(
    db,
    found.map((r) => r.key),
  );
  const labelIds = [...new Set([...columns.values()].map((row) => row.label_id))];
  // Only these labels' current notes are asked about: FTS5 seeks each of their keys.
  const matchedCurrent = new Set(
    all<{ label_id: string }>(
      db,
      `SELECT label_id FROM notes
        WHERE is_current = 1 AND label_id IN (SELECT value FROM json_each(@labels))
          AND search_key IN (
            SELECT rowid FROM notes_fts WHERE notes_fts MATCH @expression AND rowid IN (
              SELECT search_key FROM notes
               WHERE is_current = 1 AND label_id IN (SELECT value FROM json_each(@labels))))`,
      { expression, labels: JSON.stringify(labelIds) },
    ).map((row) => row.label_id),
  );
  const seen = new Set<string>();
  const kept = found.filter((r) => {
    const labelId = columns.get(r.key)?.label_id;
    if (labelId === undefined || matchedCurrent.has(labelId) || seen.has(labelId)) return false;
    seen.add(labelId);
    return true;
  });
  return noteHits(kept.slice(0, limit), columns);
}

/** Records whose patient's name matches, newest first (their snippet: the name, marked). */
function patients(db: Db, expression: string, limit: number): SearchHit[] {
  const found = newest(db, 'patients_fts', expression, limit);
  const labels = new Map(
    all<LabelColumns & { search_key: number }>(
      db,
      `SELECT search_key, id AS label_id, type AS label_type, from_ms, to_ms, patient_name
         FROM labels WHERE search_key IN (SELECT value FROM json_each(?))`,
      JSON.stringify(found.map((row) => row.key)),
    ).map((row) => [row.search_key, row]),
  );
  return found.flatMap(({ key, snippet }): SearchHit[] => {
    const row = labels.get(key);
    return row ? [{ kind: 'patient', label: toLabel(row), snippet: snippetParts(snippet) }] : [];
  });
}

/**
 * Conversation transcripts that match, in the hubs' list order (newest first). Asked only when
 * the records' own hits leave room (see `search`): a conversation the clinic kept is a record
 * whose transcript is found as a note; those left are the hub's conversations nobody imported.
 */
function conversations(db: Db, expression: string, limit: number): SearchHit[] {
  const rows = all<{ seq: number; id: string; device_id: string; status: ConversationStatus }>(
    db,
    `SELECT c.seq, c.id, c.device_id, c.status
       FROM conversations_fts JOIN conversations c ON c.seq = conversations_fts.rowid
      WHERE conversations_fts MATCH @expression ORDER BY c.list_position, c.seq LIMIT @limit`,
    { expression, limit },
  );
  // Their snippets, for the rows shown only (FTS5 seeks each).
  const snippets = new Map(
    all<Found>(
      db,
      `SELECT rowid AS key, ${snippetOf('conversations_fts')} FROM conversations_fts
        WHERE conversations_fts MATCH @expression
          AND rowid IN (SELECT value FROM json_each(@rowids))`,
      { expression, rowids: JSON.stringify(rows.map((row) => row.seq)) },
    ).map((row) => [row.key, row.snippet]),
  );
  return rows.map((row) => ({
    kind: 'conversation',
    conversationId: row.id,
    deviceId: row.device_id,
    status: row.status,
    snippet: snippetParts(snippets.get(row.seq) ?? ''),
  }));
}

interface SpeakerLineColumns extends LabelColumns {
  snippet: string;
  name: string;
  line: number;
  role: SpeakerRole | null;
  speaker: string;
}

/**
 * Lines said by a named speaker (migration 007) where at least one word is in the name and every
 * word is in the name or the line: "Marsh" finds Dr Marsh's lines, "Marsh vomiting" those of hers
 * about vomiting, and "vomiting" alone none (the transcripts' own hits have it). One hit per
 * record and speaker: the best line (bm25: only lines people named are indexed, few beside the
 * transcripts), and how many of theirs match.
 */
function speakerLines(db: Db, terms: readonly string[], limit: number): SearchHit[] {
  const expression = `(${terms.join(' AND ')}) AND speaker : (${terms.join(' OR ')})`;
  const ranked = all<SpeakerLineColumns>(
    db,
    `SELECT highlight(speaker_lines_fts, 0, char(2), char(3)) AS name,
            ${snippetOf('speaker_lines_fts', 1)},
            s.line, s.role, s.speaker, s.label_id, l.type AS label_type, l.from_ms, l.to_ms,
            l.patient_name
       FROM speaker_lines_fts
       JOIN speaker_lines s ON s.seq = speaker_lines_fts.rowid
       JOIN labels l ON l.id = s.label_id
      WHERE speaker_lines_fts MATCH @expression
      ORDER BY bm25(speaker_lines_fts), s.line LIMIT @limit`,
    { expression, limit: limit * 20 },
  );
  const hits = new Map<string, SearchHit & { kind: 'speaker' }>();
  for (const row of ranked) {
    const key = `${row.label_id}\u0000${row.speaker}`;
    const known = hits.get(key);
    if (known) {
      known.lines++;
      continue;
    }
    hits.set(key, {
      kind: 'speaker',
      label: toLabel(row),
      speaker: row.speaker,
      role: row.role,
      line: row.line,
      lines: 1,
      snippet: snippetParts(`${row.name}: ${row.snippet}`),
    });
  }
  return [...hits.values()].slice(0, limit);
}

/** When a hit's record starts (0 for a conversation: they come after the records). */
const startOf = (hit: SearchHit): number => ('label' in hit ? Date.parse(hit.label.fromTime) : 0);

/** A hit on a record's own words or name: not a conversation, not a replaced version. */
const isRecordHit = (hit: SearchHit): boolean =>
  hit.kind !== 'conversation' && (hit.kind !== 'note' || hit.current);

/** The hits of one FTS5 expression (`terms` joined), in the order `search` gives them. */
function hitsOf(
  db: Db,
  terms: readonly string[],
  limit: number,
  kinds: ReadonlySet<SearchKind>,
  history: boolean,
): SearchHit[] {
  const expression = terms.join(' ');
  const hits = [
    ...(kinds.has('patient') ? patients(db, expression, limit) : []),
    ...(kinds.has('note') ? currentNotes(db, expression, limit) : []),
    ...(kinds.has('speaker') ? speakerLines(db, terms, limit) : []),
  ]
    .sort((a, b) => startOf(b) - startOf(a))
    .slice(0, limit);
  if (hits.length < limit && kinds.has('conversation'))
    hits.push(...conversations(db, expression, limit - hits.length));
  if (hits.length < limit && kinds.has('note') && history)
    hits.push(...historyNotes(db, expression, limit - hits.length));
  return hits;
}

export const searchReads = {
  /**
   * Hits for the user's words, newest first: records whose current notes, patient's name or
   * named speakers' lines hold them, by the record's start; then, while fewer than `limit`,
   * conversation transcripts (the hubs' list order) and replaced note versions (unless
   * `history: false`). Each index is asked for its newest `limit` only, so the cost does not
   * grow with the number of matches; a narrower query finds older ones.
   *
   * The word being typed is matched whole first, and as a prefix only when that finds fewer
   * than `limit` records: FTS5 reads every match of a prefix's words before the first (it merges their
   * lists), a whole word's only up to the limit. So "blood" finds the records saying blood (or
   * bloods: stems), "bloo" those saying blood or bloodwork.
   */
  search(db: Db, query: string, options: SearchOptions = {}): SearchResults {
    const terms = ftsTerms(query);
    if (terms.length === 0) return { expression: '', hits: [] };
    const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(options.limit ?? 20)));
    const kinds = new Set(options.kinds ?? SEARCH_KINDS);
    const history = options.history !== false;
    const typed = terms.at(-1)!;
    if (typed.endsWith('*')) {
      const whole = [...terms.slice(0, -1), typed.slice(0, -1)];
      const hits = hitsOf(db, whole, limit, kinds, history);
      // Records alone fill the limit: conversations and history would come after the prefix's.
      if (hits.length === limit && hits.every(isRecordHit))
        return { expression: whole.join(' '), hits };
    }
    return { expression: terms.join(' '), hits: hitsOf(db, terms, limit, kinds, history) };
  },
};
