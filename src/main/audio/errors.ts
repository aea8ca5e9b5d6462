import { SealedDataError } from '../at-rest/account-key';
import { AppError } from '../base/errors';

/**
 * What can go wrong moving audio, as kinds the UI can explain. Network and service failures stay
 * ApiErrors (src/main/service-client/errors.ts); these are the file side, the content, and the user's choices.
 */
export type AudioErrorKind =
  /** The final name is taken and the caller said `onExists: 'ask'`: the UI asks, then retries. */
  | 'file_exists'
  /** The label exists but has no recording (the service's 404 no_audio). */
  | 'no_audio'
  | 'folder_missing'
  | 'folder_not_writable'
  | 'disk_full'
  /** The service sent fewer or more bytes than it announced, again and again. */
  | 'length_mismatch'
  /** The answer is not audio (an HTML page from a captive portal, say). */
  | 'not_audio'
  | 'cancelled'
  | 'io_error'
  /** A cached file that failed its integrity check (changed on disk): refused, never played. */
  | 'tampered';

const MESSAGES: Record<AudioErrorKind, string> = {
  file_exists: 'A file with this name already exists in the folder.',
  no_audio: 'This record has no audio recording.',
  folder_missing: 'The folder does not exist any more. Choose another folder.',
  folder_not_writable: 'Earmark cannot write to this folder. Choose another folder.',
  disk_full: 'The disk is full. Free some space or choose another folder.',
  length_mismatch: 'The audio did not arrive whole. Try again.',
  not_audio: 'The clinic service sent something that is not audio.',
  cancelled: 'The download was cancelled.',
  io_error: 'The file could not be written.',
  tampered:
    'The copy of this recording on this computer failed its integrity check, so it was not played. Play it again to fetch it anew from the clinic service.',
};

export interface AudioErrorInit {
  /** What exactly happened, for the log and the details line (never a key). */
  detail?: string;
  /** The file or folder concerned. */
  path?: string;
  /** For file_exists: the name that is taken. */
  name?: string;
  cause?: unknown;
}

export class AudioError extends AppError {
  override readonly name = 'AudioError';
  declare readonly kind: AudioErrorKind;
  readonly detail: string | undefined;
  readonly path: string | undefined;
  readonly fileName: string | undefined;

  constructor(kind: AudioErrorKind, init: AudioErrorInit = {}) {
    super(kind, MESSAGES[kind]);
    if (init.cause !== undefined) this.cause = init.cause;
    this.detail = init.detail;
    this.path = init.path;
    this.fileName = init.name;
  }

  override toIpcError() {
    return {
      kind: this.kind,
      message: this.message,
      ...(this.detail === undefined ? {} : { detail: this.detail }),
    };
  }
}

export const isAudioError = (error: unknown, kind?: AudioErrorKind): error is AudioError =>
  error instanceof AudioError && (kind === undefined || error.kind === kind);

const FOLDER_CODES: Record<string, AudioErrorKind> = {
  ENOENT: 'folder_missing',
  ENOTDIR: 'folder_missing',
  EACCES: 'folder_not_writable',
  EPERM: 'folder_not_writable',
  EROFS: 'folder_not_writable',
  ENOSPC: 'disk_full',
  EDQUOT: 'disk_full',
};

/** A file-system error as an AudioError (an AudioError passes through unchanged). */
export function fileErrorOf(error: unknown, path: string): AudioError {
  if (error instanceof AudioError) return error;
  if (error instanceof SealedDataError)
    return new AudioError('tampered', { detail: error.message, path, cause: error });
  const code = (error as { code?: unknown } | null)?.code;
  const kind = (typeof code === 'string' && FOLDER_CODES[code]) || 'io_error';
  const detail = error instanceof Error ? error.message : String(error);
  return new AudioError(kind, { detail, path, cause: error });
}
