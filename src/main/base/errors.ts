import type { IpcError, IpcErrorKind } from '../../shared/ipc';

/** An error of main's own (not the service's), with a kind the UI can explain. */
export class AppError extends Error {
  constructor(
    readonly kind: IpcErrorKind,
    message: string,
  ) {
    super(message);
  }

  toIpcError(): IpcError {
    return { kind: this.kind, message: this.message };
  }
}

export const invalidInput = (message: string) => new AppError('invalid_input', message);

/** An error's message for the log (whatever was thrown). */
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
