import type {
  FieldDefinition,
  FieldValue,
  InvalidFieldValues,
  ProblemFieldError,
  StatusInUse,
  Task,
  TaskStatus,
} from '../../shared/api';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Why `value` does not fit `field`, or undefined when it does. Values are never converted. */
function fieldValueError(field: FieldDefinition, value: FieldValue): string | undefined {
  switch (field.type) {
    case 'text':
      return typeof value === 'string' ? undefined : 'must be text (a string)';
    case 'number':
      return typeof value === 'number' ? undefined : 'must be a number';
    case 'date':
      return typeof value === 'string' && isCalendarDate(value)
        ? undefined
        : 'must be a date as YYYY-MM-DD';
    case 'select':
      return typeof value === 'string' && field.options?.includes(value)
        ? undefined
        : `must be one of ${(field.options ?? []).join(', ')}`;
  }
}

/** Duplicate status ids or field keys, and select fields without options (or options elsewhere). */
export function boardShapeErrors(
  statuses: readonly TaskStatus[],
  fields: readonly FieldDefinition[],
): ProblemFieldError[] {
  const errors: ProblemFieldError[] = [];
  const duplicates = (values: readonly string[], what: string, property: string) =>
    values.forEach((value, i) => {
      if (values.indexOf(value) !== i) {
        errors.push({
          location: 'body',
          pointer: `/${what}/${i}/${property}`,
          message: `repeats "${value}"; each must be unique`,
        });
      }
    });
  duplicates(
    statuses.map((s) => s.id),
    'statuses',
    'id',
  );
  duplicates(
    fields.map((f) => f.key),
    'fields',
    'key',
  );
  fields.forEach((field, i) => {
    const options = field.options ?? [];
    if (field.type === 'select' && options.length === 0) {
      errors.push({
        location: 'body',
        pointer: `/fields/${i}/options`,
        message: 'is required for a select field (at least one option)',
      });
    } else if (field.type !== 'select' && field.options !== undefined) {
      errors.push({
        location: 'body',
        pointer: `/fields/${i}/options`,
        message: 'is only for select fields',
      });
    } else if (new Set(options).size !== options.length) {
      errors.push({
        location: 'body',
        pointer: `/fields/${i}/options`,
        message: 'must not repeat an option',
      });
    }
  });
  return errors;
}

/** Errors of a task's field values against the board's definitions, pointed below `pointer`. */
export function fieldValuesErrors(
  fields: readonly FieldDefinition[],
  values: Record<string, FieldValue | null>,
  pointer: string,
): ProblemFieldError[] {
  const errors: ProblemFieldError[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === null) continue; // deletes the key (merge patch)
    const field = fields.find((f) => f.key === key);
    const message = field
      ? fieldValueError(field, value)
      : `is not a field of the board (fields: ${fields.map((f) => f.key).join(', ') || 'none'})`;
    if (message) errors.push({ location: 'body', pointer: `${pointer}/${key}`, message });
  }
  return errors;
}

export const isDone = (statuses: readonly TaskStatus[], statusId: string) =>
  statuses.find((s) => s.id === statusId)?.category === 'done';

/**
 * completedAtIso after a status change (seed §3.2): entering a done-category status stamps now;
 * moving between done statuses keeps the first stamp; leaving done (to an open status) clears it.
 */
export function completedAtIsoAfter(
  task: Pick<Task, 'completedAtIso'>,
  wasDone: boolean,
  willBeDone: boolean,
  nowMs: number,
): string | null {
  if (!willBeDone) return null;
  if (wasDone && task.completedAtIso !== null) return task.completedAtIso;
  return new Date(nowMs).toISOString();
}

/** Removed statuses that tasks still use, with how many. */
export function statusesInUse(
  before: readonly TaskStatus[],
  after: readonly TaskStatus[],
  tasks: readonly Task[],
): StatusInUse[] {
  const kept = new Set(after.map((s) => s.id));
  return before
    .filter((status) => !kept.has(status.id))
    .map((status) => ({
      id: status.id,
      name: status.name,
      taskCount: tasks.filter((t) => t.statusId === status.id).length,
    }))
    .filter((status) => status.taskCount > 0);
}

function invalidationReason(
  before: FieldDefinition | undefined,
  after: FieldDefinition | undefined,
) {
  if (!after) return 'the field is removed';
  if (before && before.type !== after.type)
    return `the field's type changes from ${before.type} to ${after.type}`;
  if (after.type === 'select') return 'the values are no longer among its options';
  return `the values are not valid ${after.type} values`;
}

/** The keys of `task.fields` whose values the definitions `after` do not accept. */
export function invalidKeys(after: readonly FieldDefinition[], task: Task): string[] {
  return Object.entries(task.fields)
    .filter(([key, value]) => {
      const field = after.find((f) => f.key === key);
      return !field || fieldValueError(field, value) !== undefined;
    })
    .map(([key]) => key);
}

/** Fields whose stored values the new definitions invalidate, with how many tasks hold them. */
export function invalidFieldValues(
  before: readonly FieldDefinition[],
  after: readonly FieldDefinition[],
  tasks: readonly Task[],
): InvalidFieldValues[] {
  const counts = new Map<string, number>();
  for (const task of tasks) {
    for (const key of invalidKeys(after, task)) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, taskCount]) => {
    const old = before.find((f) => f.key === key);
    return {
      key,
      name: old?.name ?? key,
      taskCount,
      reason: invalidationReason(
        old,
        after.find((f) => f.key === key),
      ),
    };
  });
}
