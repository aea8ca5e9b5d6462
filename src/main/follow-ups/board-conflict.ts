import type { InvalidFieldValues, StatusInUse } from '../../shared/api';
import type { BoardConflict, IpcError } from '../../shared/ipc';
import type { ApiError } from '../service-client/errors';
import { AppError } from '../base/errors';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const count = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0;

/** The 409's lists (the reference service's extension members), read tolerantly. */
export function boardConflictOf(error: ApiError): BoardConflict | undefined {
  const extensions = error.extensions ?? {};
  const list = (value: unknown) => (Array.isArray(value) ? value.filter(isObject) : []);
  const statusesInUse: StatusInUse[] = list(extensions.statusesInUse)
    .filter((item) => typeof item.id === 'string')
    .map((item) => ({
      id: String(item.id),
      name: typeof item.name === 'string' ? item.name : String(item.id),
      taskCount: count(item.taskCount),
    }));
  const invalidFieldValues: InvalidFieldValues[] = list(extensions.invalidFieldValues)
    .filter((item) => typeof item.key === 'string')
    .map((item) => ({
      key: String(item.key),
      name: typeof item.name === 'string' ? item.name : String(item.key),
      taskCount: count(item.taskCount),
      reason: typeof item.reason === 'string' ? item.reason : '',
    }));
  if (statusesInUse.length === 0 && invalidFieldValues.length === 0) return undefined;
  return { statusesInUse, invalidFieldValues };
}

/** PATCH board's 409 with what blocks it, so the renderer can offer the two choices. */
export class BoardConflictError extends AppError {
  constructor(
    private readonly cause409: ApiError,
    readonly conflict: BoardConflict,
  ) {
    super(
      'conflict',
      'Tasks still use what this change removes. Choose what happens to them, then save again.',
    );
  }

  override toIpcError(): IpcError {
    return {
      kind: this.kind,
      message: this.message,
      status: 409,
      ...(this.cause409.detail === undefined ? {} : { detail: this.cause409.detail }),
      boardConflict: this.conflict,
    };
  }
}
