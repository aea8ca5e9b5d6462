import { createHash } from 'node:crypto';
import type { Label } from '../../shared/api';
import { recordTypeLabel } from '../../shared/record/record-kinds';

/**
 * File names for audio written from the network. A name from Content-Disposition is the
 * service's suggestion, never trusted (RFC 6266 §4.3): only its last path segment is kept, and it
 * is made safe on every desktop file system this app runs on (Windows being the strictest).
 */

/** Bytes (UTF-8) a whole file name may take: below the common 255-byte limit, leaving room for " (99)". */
export const MAX_NAME_BYTES = 200;

/** The extension of each audio type the service may send; the name's own extension is not used. */
const AUDIO_EXTENSIONS: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/wave': 'wav',
  'audio/x-wav': 'wav',
  'audio/vnd.wave': 'wav',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/m4a': 'm4a',
  'audio/aac': 'aac',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
};

/** The media type without parameters, lower case: "Audio/WAV; codecs=1" → "audio/wav". */
export const mediaTypeOf = (contentType: string): string =>
  contentType.split(';')[0]!.trim().toLowerCase();

/**
 * The extension for a Content-Type, or undefined when the answer is not audio at all (an HTML
 * error page must never be saved as a recording). An audio type without a known extension, or
 * application/octet-stream, gets "bin": never an extension the name suggested (".exe").
 */
export function extensionFor(contentType: string): string | undefined {
  const type = mediaTypeOf(contentType);
  const known = AUDIO_EXTENSIONS[type];
  if (known) return known;
  return type.startsWith('audio/') || type === 'application/octet-stream' ? 'bin' : undefined;
}

/** The Content-Type to serve for a file we wrote, from its extension. */
export function contentTypeForExtension(extension: string): string {
  const lower = extension.replace(/^\./, '').toLowerCase();
  if (lower === 'wav') return 'audio/wav';
  if (lower === 'm4a' || lower === 'aac') return 'audio/mp4';
  const found = Object.entries(AUDIO_EXTENSIONS).find(([, ext]) => ext === lower);
  return found?.[0] ?? 'application/octet-stream';
}

// C0 and C1 controls, DEL, and the characters Windows refuses in names.
// eslint-disable-next-line no-control-regex
const INVALID = /[\u0000-\u001f\u007f-\u009f<>:"/\\|?*]/g;
// Bidirectional overrides and isolates ("evil\u202Evaw.exe" shows as "evilexe.wav"), zero-width
// characters, BOM: invisible, so they are dropped rather than replaced.
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
// Windows device names, whatever extension follows (CON.txt, nul.tar.gz), and COM¹ to LPT³.
const RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i;

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;

/** Cuts `text` to at most `maxBytes` of UTF-8 without splitting a character or an emoji. */
export function truncateBytes(text: string, maxBytes: number): string {
  if (byteLength(text) <= maxBytes) return text;
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(
    text,
  )) {
    const size = byteLength(segment);
    if (used + size > maxBytes) break;
    out += segment;
    used += size;
  }
  return out;
}

/** Trims what Windows drops or hides: leading and trailing spaces and dots (".hidden", "name. "). */
const trimEdges = (text: string) => text.replace(/^[\s.]+|[\s.]+$/gu, '');

/**
 * The stem (name without extension) of a suggested file name, made safe: its last path segment
 * (either slash), no control, invisible or Windows-invalid characters, no leading or trailing dots
 * or spaces, no device name, at most `maxBytes`. Empty when nothing usable is left.
 */
function safeStem(suggested: string, maxBytes = MAX_NAME_BYTES): string {
  const segment = suggested.normalize('NFC').split(/[/\\]/).pop() ?? '';
  const cleaned = segment.replace(INVISIBLE, '').replace(INVALID, '_');
  const dot = cleaned.lastIndexOf('.');
  const withoutExtension = dot > 0 ? cleaned.slice(0, dot) : cleaned;
  let stem = trimEdges(truncateBytes(trimEdges(withoutExtension), maxBytes));
  // "CON", "con.backup", "Nul " are devices on Windows whatever follows the first dot.
  const device = stem.split('.')[0]!.trimEnd();
  if (RESERVED.test(device)) stem = truncateBytes(`_${stem}`, maxBytes);
  // Only underscores left (a name of control characters): nothing worth keeping.
  return /^[_\s]*$/.test(stem) ? '' : stem;
}

/**
 * A safe file name for audio of `contentType`: the suggested name's stem (see safeStem) with the
 * type's extension, or `fallback`'s when the suggestion leaves nothing. Never empty, at most
 * MAX_NAME_BYTES of UTF-8, the extension always kept.
 */
export function safeFileName(
  suggested: string | null | undefined,
  extension: string,
  fallback: string,
): string {
  const budget = MAX_NAME_BYTES - byteLength(extension) - 1;
  const stem = safeStem(suggested ?? '', budget) || safeStem(fallback, budget) || 'audio';
  return `${stem}.${extension}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The name the service would suggest, built from the label when it suggests none:
 * "<patient or Unassigned> <YYYY-MM-DD HHmm> <type>", the time local to this computer.
 */
export function labelFileStem(
  label: Pick<Label, 'patient' | 'fromTime' | 'type'> | undefined,
  labelId: string,
): string {
  if (!label) return `Recording ${labelId}`;
  const start = new Date(label.fromTime);
  const when = Number.isNaN(start.getTime())
    ? ''
    : ` ${start.getFullYear()}-${pad(start.getMonth() + 1)}-${pad(start.getDate())} ${pad(start.getHours())}${pad(start.getMinutes())}`;
  // The kind in plain words ("Ambient hub recording"), not the service's type name.
  return `${label.patient?.name || 'Unassigned'}${when} ${recordTypeLabel(label.type)}`;
}

/** "name.wav", "name (2).wav", "name (3).wav"…: the n-th candidate for keep-both. */
export function numberedName(name: string, n: number): string {
  if (n <= 1) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/** The name with another extension: "a.b.wav" → "a.b.txt". */
export function withExtension(name: string, extension: string): string {
  const dot = name.lastIndexOf('.');
  return `${dot > 0 ? name.slice(0, dot) : name}.${extension}`;
}

/** A label id as a piece of a file name: itself when it is plain (a UUID), else a hash of it. */
export function idForFileName(labelId: string): string {
  return /^[A-Za-z0-9-]{1,64}$/.test(labelId)
    ? labelId
    : createHash('sha256').update(labelId).digest('hex').slice(0, 32);
}
