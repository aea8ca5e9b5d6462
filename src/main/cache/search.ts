import type { ConversationStatus, RecordType } from '../../shared/api';
import type { SearchHit, SearchKind, SearchLabel, SnippetPart } from '../../shared/search';
import type { SpeakerRole } from '../../shared/speakers/overlay';
import { all, type Db } from '../../node-common/sql';

/**
 * Full-text search over the cache (FTS5, migration 002). Snippets come back as parts marked hit
 * or not, never as markup: the renderer shows each part as text and styles the hits.
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

/** A row of an index, ranked, with its snippet (computed in the same statement: a second
 * statement restricted to the top rowids would expand prefix terms again for each of them). */
interface Ranked {
  seq: number;
  score: number;
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

type NoteIndex = 'notes_fts' | 'history_fts';

/** The best `limit` rows of a note index: bm25 of every match, then the best, with snippets. */
const rankNotes = (db: Db, index: NoteIndex, expression: string, limit: number): Ranked[] =>
  all<Ranked>(
    db,
    `SELECT rowid AS seq, bm25(${index}) AS score, ${snippetOf(index)} FROM ${index}
      WHERE ${index} MATCH @expression ORDER BY score, rowid DESC LIMIT @limit`,
    { expression, limit },
  );

interface NoteColumns extends LabelColumns {
  seq: number;
  type: string;
  created_at: string;
  is_current: number;
}

function noteColumns(db: Db, seqs: number[]): Map<number, NoteColumns> {
  return new Map(
    all<NoteColumns>(
      db,
      `SELECT n.seq, n.type, n.created_at, n.is_current, n.label_id, l.type AS label_type,
              l.from_ms, l.to_ms, l.patient_name
         FROM notes n JOIN labels l ON l.id = n.label_id
        WHERE n.seq IN (SELECT value FROM json_each(?))`,
      JSON.stringify(seqs),
    ).map((row) => [row.seq, row]),
  );
}

function noteHits(ranked: Ranked[], columns: Map<number, NoteColumns>): SearchHit[] {
  return ranked.flatMap(({ seq, score, snippet }): SearchHit[] => {
    const row = columns.get(seq);
    if (!row) return [];
    return [
      {
        kind: 'note',
        label: toLabel(row),
        noteType: row.type,
        noteCreatedAt: row.created_at,
        current: row.is_current === 1,
        snippet: snippetParts(snippet),
        score,
      },
    ];
  });
}

/** Current versions have their own index, so ranking them needs no join. */
function currentNotes(db: Db, expression: string, limit: number): SearchHit[] {
  const ranked = rankNotes(db, 'notes_fts', expression, limit);
  return noteHits(
    ranked,
    noteColumns(
      db,
      ranked.map((r) => r.seq),
    ),
  );
}

/**
 * Replaced versions that match, for labels none of whose current notes match: the current
 * version wins, and an old one shows (as history) only when it alone holds the words. One per
 * label, its best.
 */
function historyNotes(db: Db, expression: string, limit: number): SearchHit[] {
  const ranked = rankNotes(db, 'history_fts', expression, limit * 4);
  if (ranked.length === 0) return [];
  const columns = noteColumns(
    db,
    ranked.map((r) => r.seq),
  );
  const labelIds = [...new Set([...columns.values()].map((row) => row.label_id))];
  const matchedCurrent = new Set(
    all<{ label_id: string }>(
      db,
      `SELECT label_id FROM notes
        WHERE is_current = 1 AND label_id IN (SELECT value FROM json_each(@labels))
          AND seq IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH @expression)`,
      { expression, labels: JSON.stringify(labelIds) },
    ).map((row) => row.label_id),
  );
  const seen = new Set<string>();
  const kept = ranked.filter((r) => {
    const labelId = columns.get(r.seq)?.label_id;
    if (labelId === undefined || matchedCurrent.has(labelId) || seen.has(labelId)) return false;
    seen.add(labelId);
    return true;
  });
  return noteHits(kept.slice(0, limit), columns);
}

function patients(db: Db, expression: string, limit: number): SearchHit[] {
  const ranked = all<Ranked & LabelColumns>(
    db,
    `SELECT patients_fts.rowid AS seq, bm25(patients_fts) AS score, ${snippetOf('patients_fts')},
            l.id AS label_id, l.type AS label_type, l.from_ms, l.to_ms, l.patient_name
       FROM patients_fts JOIN labels l ON l.seq = patients_fts.rowid
      WHERE patients_fts MATCH @expression
      ORDER BY score, l.from_ms DESC LIMIT @limit`,
    { expression, limit },
  );
  return ranked.map((row) => ({
    kind: 'patient',
    label: toLabel(row),
    snippet: snippetParts(row.snippet),
    score: row.score,
  }));
}

function conversations(db: Db, expression: string, limit: number): SearchHit[] {
  const ranked = all<Ranked & { id: string; device_id: string; status: ConversationStatus }>(
    db,
    `SELECT conversations_fts.rowid AS seq, bm25(conversations_fts) AS score,
            ${snippetOf('conversations_fts')}, c.id, c.device_id, c.status
       FROM conversations_fts JOIN conversations c ON c.seq = conversations_fts.rowid
      WHERE conversations_fts MATCH @expression
      ORDER BY score, c.list_position LIMIT @limit`,
    { expression, limit },
  );
  return ranked.map((row) => ({
    kind: 'conversation',
    conversationId: row.id,
    deviceId: row.device_id,
    status: row.status,
    snippet: snippetParts(row.snippet),
    score: row.score,
  }));
}

interface SpeakerLineColumns extends Ranked, LabelColumns {
  name: string;
  line: number;
  role: SpeakerRole | null;
  speaker: string;
}

/**
 * Lines said by a named speaker (migration 007) where at least one word is in the name and every
 * word is in the name or the line: "Marsh" finds Dr Marsh's lines, "Marsh vomiting" those of hers
 * about vomiting, and "vomiting" alone none (the transcripts' own hits have it). One hit per
 * record and speaker: the best line, and how many of theirs match.
 */
function speakerLines(db: Db, terms: readonly string[], limit: number): SearchHit[] {
  const expression = `(${terms.join(' AND ')}) AND speaker : (${terms.join(' OR ')})`;
  const ranked = all<SpeakerLineColumns>(
    db,
    `SELECT speaker_lines_fts.rowid AS seq, bm25(speaker_lines_fts) AS score,
            highlight(speaker_lines_fts, 0, char(2), char(3)) AS name,
            ${snippetOf('speaker_lines_fts', 1)},
            s.line, s.role, s.speaker, s.label_id, l.type AS label_type, l.from_ms, l.to_ms,
            l.patient_name
       FROM speaker_lines_fts
       JOIN speaker_lines s ON s.seq = speaker_lines_fts.rowid
       JOIN labels l ON l.id = s.label_id
      WHERE speaker_lines_fts MATCH @expression
      ORDER BY score, s.line LIMIT @limit`,
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
      score: row.score,
    });
  }
  return [...hits.values()].slice(0, limit);
}

export const searchReads = {
  /**
   * Ranked hits for the user's words: current notes, patient names and conversation transcripts
   * by bm25 together, then (unless `history: false`) replaced note versions.
   */
  search(db: Db, query: string, options: SearchOptions = {}): SearchResults {
    const terms = ftsTerms(query);
    const expression = terms.join(' ');
    if (expression === '') return { expression, hits: [] };
    const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(options.limit ?? 20)));
    const kinds = new Set(options.kinds ?? SEARCH_KINDS);
    const current = [
      ...(kinds.has('patient') ? patients(db, expression, limit) : []),
      ...(kinds.has('note') ? currentNotes(db, expression, limit) : []),
      ...(kinds.has('conversation') ? conversations(db, expression, limit) : []),
      ...(kinds.has('speaker') ? speakerLines(db, terms, limit) : []),
    ]
      .sort((a, b) => a.score - b.score)
      .slice(0, limit);
    const room = limit - current.length;
    const history =
      room > 0 && kinds.has('note') && options.history !== false
        ? historyNotes(db, expression, room)
        : [];
    return { expression, hits: [...current, ...history] };
  },
};
