/**
 * Tolerant reading of the service's JSON. The real service differs from the contract in small
 * ways, so readers pick the fields they know and ignore the rest, accept timestamps as ISO 8601
 * or epoch milliseconds, and default missing optional strings. They refuse only a body of the
 * wrong overall shape (not an object, not a list, an item without its id): a ShapeError, which the
 * request core reports as 'invalid_response'.
 */

export type JsonObject = Record<string, unknown>;

export class ShapeError extends Error {
  override readonly name = 'ShapeError';
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function objectOf(value: unknown, what: string): JsonObject {
  if (!isObject(value)) throw new ShapeError(`${what}: expected a JSON object`);
  return value;
}

export function listOf<T>(value: unknown, what: string, readItem: (item: JsonObject) => T): T[] {
  if (!Array.isArray(value)) throw new ShapeError(`${what}: expected a JSON array`);
  return value.map((item, index) => {
    const source = objectOf(item, `${what}[${index}]`);
    try {
      return readItem(source);
    } catch (error) {
      // Say where in the list the bad item was.
      if (error instanceof ShapeError) throw new ShapeError(`${what}[${index}]: ${error.message}`);
      throw error;
    }
  });
}

/** A nested object, or null when absent or not an object. */
export const optionalObject = (source: JsonObject, key: string): JsonObject | null => {
  const value = source[key];
  return isObject(value) ? value : null;
};

/** A string; numbers and booleans become their text; anything else the fallback. */
export function text(source: JsonObject, key: string, fallback = ''): string {
  const value = source[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fallback;
}

export const nullableText = (source: JsonObject, key: string): string | null =>
  source[key] === null || source[key] === undefined ? null : text(source, key);

/** A string the item cannot do without (its id, its type). */
export function requiredText(source: JsonObject, key: string, what: string): string {
  const value = text(source, key);
  if (value === '') throw new ShapeError(`${what}: "${key}" is missing`);
  return value;
}

/**
 * A string of an enumeration. Values the contract does not know yet are kept as sent (a newer
 * service may add some), so callers need a default branch when they switch on it.
 */
export const enumText = <T extends string>(source: JsonObject, key: string, what: string): T =>
  requiredText(source, key, what) as T;

export function flag(source: JsonObject, key: string, fallback = false): boolean {
  const value = source[key];
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return fallback;
}

export function numberOf(source: JsonObject, key: string, fallback = 0): number {
  const value = source[key];
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : fallback;
}

export function textList(source: JsonObject, key: string): string[] {
  const value = source[key];
  return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : [];
}

/** `Date.prototype.toISOString`'s form, with each field in its range (the day is checked below). */
const CANONICAL_ISO =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const twoDigits = (text: string, at: number) =>
  (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;

/**
 * Whether `value` is already what `toISOString` would give for it, so it can be kept as sent.
 * Parsing and formatting cost about 2 µs a timestamp, four per label; this test about 0.04 µs.
 * A day past its month's end (2023-02-29) is not: `Date.parse` rolls it over into the next month.
 */
function isCanonicalIso(value: string): boolean {
  if (!CANONICAL_ISO.test(value)) return false;
  const day = twoDigits(value, 8);
  if (day <= 28) return true;
  const month = twoDigits(value, 5);
  const year = Number(value.slice(0, 4));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** An ISO 8601 string or epoch milliseconds (a number or digits), as an ISO string; else null. */
export function timestampOf(value: unknown): string | null {
  if (typeof value === 'string' && isCanonicalIso(value)) return value;
  const ms =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^-?\d+$/.test(value.trim())
        ? Number(value)
        : typeof value === 'string'
          ? Date.parse(value)
          : Number.NaN;
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export const nullableTimestamp = (source: JsonObject, key: string): string | null =>
  timestampOf(source[key]);

/** A timestamp the contract always has; '' when the service sent none it could read. */
export const timestamp = (source: JsonObject, key: string): string =>
  timestampOf(source[key]) ?? '';

/** Epoch milliseconds (fields named ...Ms), also when sent as digits or an ISO string. */
export function epochMs(source: JsonObject, key: string): number {
  const iso = timestampOf(source[key]);
  return iso === null ? 0 : Date.parse(iso);
}

/** The body of a call that answers `{"success": boolean}`: any 2xx without a body is a success. */
export const readSuccess = (body: unknown): { success: boolean } => ({
  success: body === undefined || flag(objectOf(body, 'response'), 'success', true),
});
