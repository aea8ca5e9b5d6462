import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** Seed: "Identifiers are UUID strings unless stated". */
export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });

/** ISO 8601 timestamp as the service writes it (UTC, milliseconds). */
export const Timestamp = Type.String({ format: 'date-time' });

/** Integer epoch milliseconds (query and body fields named ...Ms). */
export const EpochMs = Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000 });

/**
 * An opaque id that goes into a path: a safe alphabet, with at least one character that is not a
 * dot — "." and ".." are steps of a URL's path (`/hub/conversations/hub-1/..` is another route).
 */
const PathId = () =>
  Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9_.-]*[A-Za-z0-9_-][A-Za-z0-9_.-]*$',
  });

/** Device ids are opaque strings (seed §2.4). */
export const DeviceId = PathId();

/** Conversation ids are strings (seed §2.5); the service makes UUIDs. */
export const ConversationId = PathId();

/**
 * A string enum as one JSON Schema `enum` (not an anyOf of constants), so a bad value gets one
 * clear message listing the allowed values.
 */
export const StringEnum = <const T extends readonly string[]>(values: T, options: object = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * A value of one of several JSON types, as one `type` list. Request bodies use it where null or a
 * number must arrive as sent: the service's Ajv coerces types (for query strings), and inside an
 * anyOf it would turn null or 5 into "" or "5" on the string branch, whereas a type list is left
 * alone when the value already has one of its types.
 */
export const OneOfTypes = <T>(
  types: readonly ('string' | 'number' | 'null')[],
  options: Record<string, unknown> = {},
) => Type.Unsafe<T>({ type: [...types], ...options });

export const SuccessResponse = Type.Object({ success: Type.Boolean() });
export type SuccessResponse = Static<typeof SuccessResponse>;
