import { Type, type Static } from '@sinclair/typebox';

/**
 * The reference service's sandbox controls: for the demo and the tests, outside the seed's API.
 * The real service has none of them, and the reference refuses them in the field dialect (404,
 * as an unknown path), so nothing in the app may depend on them.
 */

/** `POST /sandbox/labels/{labelId}/notes`: regenerate one of a record's notes. */
export const sandboxNotesPath = (labelId: string) => `/sandbox/labels/${labelId}/notes`;

/**
 * Regenerates a note, as the real service does when it reprocesses a record: a new version of
 * the same type is appended and the old ones are kept. Without `content`, the new version is a
 * revision of the current one (src/service/sandbox/revision.ts).
 */
export const RegenerateNoteRequest = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 64 }),
    content: Type.Optional(Type.String({ maxLength: 1_000_000 })),
  },
  { additionalProperties: false },
);
export type RegenerateNoteRequest = Static<typeof RegenerateNoteRequest>;
