import { Type, type Static } from '@sinclair/typebox';
import { Nullable, OneOfTypes, StringEnum, Timestamp, Uuid } from './common';
import { Problem } from './errors';
import { FIELD_TYPES, LIST_MAX_OFFSET, STATUS_CATEGORIES } from './values';

/**
 * Seed §2.6, §2.7, §3.2, §4.4. The seed leaves the status object and field definition open;
 * ours: a status has an id, a name and a category (open or done); a field definition has a key,
 * a name, a type and, for select fields, its options.
 */
const Slug = (description: string) =>
  Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z][a-z0-9_]*$', description });

/** A reference to a status by id (checked against the board, so any short string parses). */
const StatusRef = Type.String({ minLength: 1, maxLength: 40 });

export const TaskStatus = Type.Object(
  {
    id: Slug('stable id that tasks reference through statusId'),
    name: Type.String({ minLength: 1, maxLength: 80 }),
    category: StringEnum(STATUS_CATEGORIES),
  },
  { additionalProperties: false },
);
export type TaskStatus = Static<typeof TaskStatus>;

export const FieldDefinition = Type.Object(
  {
    key: Slug("key of the value in a task's fields"),
    name: Type.String({ minLength: 1, maxLength: 80 }),
    type: StringEnum(FIELD_TYPES),
    /** The allowed values of a select field. */
    options: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 80 }), { maxItems: 100 }),
    ),
  },
  { additionalProperties: false },
);
export type FieldDefinition = Static<typeof FieldDefinition>;

const FIELD_VALUE_MAX_LENGTH = 2000;
/** A task's field value: text, number, date (YYYY-MM-DD) or select option. */
export const FieldValue = OneOfTypes<string | number>(['string', 'number'], {
  maxLength: FIELD_VALUE_MAX_LENGTH,
});
export type FieldValue = Static<typeof FieldValue>;
const FieldValues = Type.Record(Type.String(), FieldValue, { maxProperties: 50 });

export const TaskBoard = Type.Object({
  id: Uuid,
  name: Type.String(),
  statuses: Type.Array(TaskStatus),
  fields: Type.Array(FieldDefinition),
  createdAt: Timestamp,
});
export type TaskBoard = Static<typeof TaskBoard>;

export const TaskBoardList = Type.Object({ items: Type.Array(TaskBoard) });
export type TaskBoardList = Static<typeof TaskBoardList>;

const Statuses = Type.Array(TaskStatus, { minItems: 1, maxItems: 50 });
const Fields = Type.Array(FieldDefinition, { maxItems: 50 });

export const CreateBoardRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    statuses: Type.Optional(Statuses),
    fields: Type.Optional(Fields),
  },
  { additionalProperties: false },
);
export type CreateBoardRequest = Static<typeof CreateBoardRequest>;

/** PATCH board: complete replacement arrays (rule 2); what is absent stays. */
export const PatchBoardRequest = Type.Partial(CreateBoardRequest);
export type PatchBoardRequest = Static<typeof PatchBoardRequest>;

export const PatchBoardQuery = Type.Object(
  {
    migrateTo: Type.Optional(StatusRef),
    dropInvalidFieldValues: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type PatchBoardQuery = Static<typeof PatchBoardQuery>;

export const Task = Type.Object({
  id: Uuid,
  boardId: Uuid,
  title: Type.String(),
  groupKey: Type.String(),
  fields: FieldValues,
  linkUrl: Type.String(),
  description: Type.String(),
  assignee: Type.String(),
  dueDate: Type.String(),
  /** Directly editable (the date done). */
  completedAt: Type.String(),
  /** Stamped when the task enters a done-category status. */
  completedAtIso: Nullable(Timestamp),
  statusId: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Task = Static<typeof Task>;

const Text = (maxLength: number) => Type.String({ maxLength });

export const TaskInput = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 300 }),
    groupKey: Type.Optional(Text(200)),
    fields: Type.Optional(FieldValues),
    linkUrl: Type.Optional(Text(2000)),
    description: Type.Optional(Text(10_000)),
    assignee: Type.Optional(Text(200)),
    dueDate: Type.Optional(Text(40)),
    statusId: Type.Optional(StatusRef),
  },
  { additionalProperties: false },
);
export type TaskInput = Static<typeof TaskInput>;

const BULK_MAX_ITEMS = 500;
export const BulkCreateRequest = Type.Object(
  { items: Type.Array(TaskInput, { minItems: 1, maxItems: BULK_MAX_ITEMS }) },
  { additionalProperties: false },
);
export type BulkCreateRequest = Static<typeof BulkCreateRequest>;

export const TaskItems = Type.Object({ items: Type.Array(Task) });
export type TaskItems = Static<typeof TaskItems>;

export const TASK_LIST_DEFAULT_LIMIT = 100;
const TASK_LIST_MAX_LIMIT = 1000;

export const TaskListQuery = Type.Object(
  {
    category: Type.Optional(StringEnum(STATUS_CATEGORIES)),
    statusId: Type.Optional(StatusRef),
    groupKey: Type.Optional(Text(200)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: TASK_LIST_MAX_LIMIT })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: LIST_MAX_OFFSET })),
  },
  { additionalProperties: false },
);
export type TaskListQuery = Static<typeof TaskListQuery>;

export const TaskList = Type.Object({
  items: Type.Array(Task),
  total: Type.Integer({ minimum: 0 }),
});
export type TaskList = Static<typeof TaskList>;

const NullableText = (maxLength: number) =>
  Type.Optional(OneOfTypes<string | null>(['string', 'null'], { maxLength }));

/** Rule 4: fields is a merge patch (null deletes a key). Rule 5: null or absent text is unchanged, "" clears. */
export const PatchTaskRequest = Type.Object(
  {
    statusId: Type.Optional(StatusRef),
    fields: Type.Optional(
      Type.Record(
        Type.String(),
        OneOfTypes<string | number | null>(['string', 'number', 'null'], {
          maxLength: FIELD_VALUE_MAX_LENGTH,
        }),
        { maxProperties: 50 },
      ),
    ),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    description: NullableText(10_000),
    groupKey: NullableText(200),
    assignee: NullableText(200),
    dueDate: NullableText(40),
    linkUrl: NullableText(2000),
    completedAt: NullableText(40),
  },
  { additionalProperties: false },
);
export type PatchTaskRequest = Static<typeof PatchTaskRequest>;

export const Comment = Type.Object({
  id: Uuid,
  taskId: Uuid,
  body: Type.String(),
  authorEmail: Type.String(),
  createdAt: Timestamp,
});
export type Comment = Static<typeof Comment>;

export const CreateCommentRequest = Type.Object(
  { body: Type.String({ minLength: 1, maxLength: 10_000 }) },
  { additionalProperties: false },
);
export type CreateCommentRequest = Static<typeof CreateCommentRequest>;

/** One removed status that tasks still use (PATCH board 409). */
export const StatusInUse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  taskCount: Type.Integer({ minimum: 1 }),
});
export type StatusInUse = Static<typeof StatusInUse>;

/** One field whose stored values the new definitions would invalidate (PATCH board 409). */
export const InvalidFieldValues = Type.Object({
  key: Type.String(),
  /** The field's name before the change. */
  name: Type.String(),
  taskCount: Type.Integer({ minimum: 1 }),
  /** Why the values no longer fit: the field was removed, its type changed, or options went. */
  reason: Type.String(),
});
export type InvalidFieldValues = Static<typeof InvalidFieldValues>;

/**
 * The 409 of PATCH board (seed §4.4 rule 3, §7): problem details plus which statuses and fields,
 * and how many tasks. Both lists are present; one of them is not empty.
 */
export const BoardConflictProblem = Type.Composite([
  Problem,
  Type.Object({
    statusesInUse: Type.Array(StatusInUse),
    invalidFieldValues: Type.Array(InvalidFieldValues),
  }),
]);
export type BoardConflictProblem = Static<typeof BoardConflictProblem>;
