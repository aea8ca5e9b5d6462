import type { ConversationStatus, RecordType } from './api';
import type { SpeakerRole } from './speakers/overlay';

/**
 * Full-text search results as they cross to the renderer. Snippets are parts marked hit or not,
 * never markup: the renderer shows each part as text and styles the hits.
 */
/** A run of a snippet; `hit` marks the words that matched. */
export interface SnippetPart {
  text: string;
  hit: boolean;
}

export type SearchKind = 'note' | 'patient' | 'conversation' | 'speaker';

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
      /** Lines of a record's current transcript said by a speaker named on this computer. */
      kind: 'speaker';
      label: SearchLabel;
      /** The name given to the speaker, and their role. */
      speaker: string;
      role: SpeakerRole | null;
      /** The best matching line (its position in the transcript) … */
      line: number;
      /** … of this many lines of theirs that match. */
      lines: number;
    })
  | (HitBase & {
      kind: 'conversation';
      conversationId: string;
      deviceId: string;
      status: ConversationStatus;
    });
