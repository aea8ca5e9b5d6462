import type { ConversationStatus, RecordType } from './api';

/**
 * Full-text search results as they cross to the renderer. Snippets are parts marked hit or not,
 * never markup: the renderer shows each part as text and styles the hits.
 */
/** A run of a snippet; `hit` marks the words that matched. */
export interface SnippetPart {
  text: string;
  hit: boolean;
}

export type SearchKind = 'note' | 'patient' | 'conversation';

/** The label a note or patient hit belongs to. */
export interface SearchLabel {
  id: string;
  type: RecordType;
  fromTime: string;
  toTime: string;
  patientName: string | null;
}

interface HitBase {
  snippet: SnippetPart[];
  /** bm25 of its index: lower is better (FTS5 scores are negative). */
  score: number;
}

export type SearchHit =
  | (HitBase & {
      kind: 'note';
      label: SearchLabel;
      noteType: string;
      noteCreatedAt: string;
      /** False for a version a later one replaced (history). */
      current: boolean;
    })
  | (HitBase & { kind: 'patient'; label: SearchLabel })
  | (HitBase & {
      kind: 'conversation';
      conversationId: string;
      deviceId: string;
      status: ConversationStatus;
    });
