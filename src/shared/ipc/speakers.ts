import { Type } from '@sinclair/typebox';
import { Uuid } from '../api';
import type { CarriedName, DroppedName } from '../speakers/carry-over';
import {
  type LineMove,
  MAX_NAMED_SPEAKERS,
  MAX_SPEAKER_LABEL,
  MAX_TRANSCRIPT_LINES,
  SPEAKER_ROLES,
  type SpeakerName,
  type SpeakerOverlay,
  type SpeakerRole,
} from '../speakers/overlay';
import { channel } from './channel';

/** What the carry-over did when this version arrived: shown on the transcript until dismissed. */
export interface CarryNotice {
  /** The earlier version the names came from. */
  fromVersionKey: string;
  carried: CarriedName[];
  dropped: DroppedName[];
  /** Moved lines that could not be placed in this version. */
  droppedMoves: number;
}

/** The names of one transcript version (src/shared/speakers/overlay.ts). */
export interface VersionSpeakers extends SpeakerOverlay {
  /** transcriptVersionKey() of the version. */
  versionKey: string;
  names: SpeakerName[];
  moves: LineMove[];
  /** Set when the names were carried over from an earlier version and not yet dismissed. */
  notice: CarryNotice | null;
  /** When the names were last changed (ISO 8601). */
  updatedAt: string;
}

/**
 * A record's speaker names on this computer: each transcript version that has any, the current
 * one (`currentVersionKey`) with what carried over to it from an earlier one.
 */
export interface RecordSpeakers {
  labelId: string;
  /** The key of the record's current transcript version; null while it has none. */
  currentVersionKey: string | null;
  versions: VersionSpeakers[];
}

/** A name used before on this computer for the clinic, most recent first. */
export interface KnownSpeaker {
  name: string;
  role: SpeakerRole | null;
  lastUsedAt: string;
}

/** Who spoke in a record, where known: the named speakers of its current transcript. */
export interface SpokenBy {
  labelId: string;
  speakers: SpeakerName[];
}

const Label = Type.String({ minLength: 1, maxLength: MAX_SPEAKER_LABEL });
const VersionKey = Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9a-z]+$' });
const Role = Type.Union([...SPEAKER_ROLES.map((role) => Type.Literal(role)), Type.Null()]);

/**
 * Speaker names: an overlay on a record's transcript kept in the account's cache (local to this
 * computer, readable and writable offline; the service's notes are never written).
 */
export const SPEAKER_CHANNELS = {
  /**
   * The record's names. When its current transcript version has none yet but an earlier one
   * does, the names that still fit are carried over first (and said in `notice`).
   */
  'speakers.get': channel<RecordSpeakers>()(
    Type.Object({ labelId: Uuid }, { additionalProperties: false }),
  ),
  /**
   * Replaces the names and moved lines of one transcript version (Undo sends the previous ones
   * back). Names are cleaned; names of labels the version does not have, and moves it cannot
   * hold, are left out.
   */
  'speakers.save': channel<RecordSpeakers>()(
    Type.Object(
      {
        labelId: Uuid,
        versionKey: VersionKey,
        names: Type.Array(
          Type.Object(
            { label: Label, name: Type.String({ maxLength: 200 }), role: Role },
            { additionalProperties: false },
          ),
          { maxItems: MAX_NAMED_SPEAKERS },
        ),
        moves: Type.Array(
          Type.Object(
            {
              line: Type.Integer({ minimum: 0, maximum: MAX_TRANSCRIPT_LINES - 1 }),
              label: Label,
            },
            { additionalProperties: false },
          ),
          { maxItems: MAX_TRANSCRIPT_LINES },
        ),
      },
      { additionalProperties: false },
    ),
  ),
  /** The carry-over notice of a version has been read: it is no longer shown. */
  'speakers.dismissNotice': channel<RecordSpeakers>()(
    Type.Object({ labelId: Uuid, versionKey: VersionKey }, { additionalProperties: false }),
  ),
  /** Names used before on this computer for the clinic that contain `search`, latest first. */
  'speakers.known': channel<KnownSpeaker[]>()(
    Type.Object(
      {
        search: Type.String({ maxLength: 200 }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
      },
      { additionalProperties: false },
    ),
  ),
  /** Who spoke in each record, where named (the timeline's and Review's cards). */
  'speakers.of': channel<SpokenBy[]>()(
    Type.Object({ labelIds: Type.Array(Uuid, { maxItems: 500 }) }, { additionalProperties: false }),
  ),
} as const;
