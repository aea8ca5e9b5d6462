import { Type } from '@sinclair/typebox';
import {
  FIELD_TYPES,
  STATUS_CATEGORIES,
  Uuid,
  type Comment,
  type Task,
  type TaskBoard,
} from '../api';
import { channel, None } from './channel';
import type { Sourced } from './results';

/** A board with its tasks (every page, up to a cap) and the comments posted from this app. */
export interface BoardView {
  board: TaskBoard;
  tasks: Task[];
  /** The number of tasks on the board; more than tasks.length when the cap was reached. */
  total: number;
  /**
   * Comments by task id. The service has no endpoint that lists comments, so these are the ones
   * posted from this app, as the service returned them, oldest first.
   */
  comments: Record<string, Comment[]>;
}

/** The follow-ups of one visit (the tasks of a groupKey) on every board. */
export interface GroupFollowUps {
  groupKey: string;
  boards: TaskBoard[];
  tasks: Task[];
}

const Slug = Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z][a-z0-9_]*$' });
const StatusRefInput = Type.String({ minLength: 1, maxLength: 40 });
const BoardStatusInput = Type.Object(
  {
    id: Slug,
    name: Type.String({ minLength: 1, maxLength: 80 }),
    category: Type.Union(STATUS_CATEGORIES.map((category) => Type.Literal(category))),
  },
  { additionalProperties: false },
);
const BoardFieldInput = Type.Object(
  {
    key: Slug,
    name: Type.String({ minLength: 1, maxLength: 80 }),
    type: Type.Union(FIELD_TYPES.map((type) => Type.Literal(type))),
    options: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 80 }), { maxItems: 100 }),
    ),
  },
  { additionalProperties: false },
);
const BoardStatusesInput = Type.Array(BoardStatusInput, { minItems: 1, maxItems: 50 });
const BoardFieldsInput = Type.Array(BoardFieldInput, { maxItems: 50 });
const FieldValueInput = Type.Union([Type.String({ maxLength: 2000 }), Type.Number()]);
/** A field's key (a board field's slug): bounded, so the largest valid input has a size. */
const FieldKey = Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' });
const NullableTextInput = (maxLength: number) =>
  Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));
const TaskInputSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 300 }),
    groupKey: Type.Optional(Type.String({ maxLength: 200 })),
    fields: Type.Optional(Type.Record(FieldKey, FieldValueInput, { maxProperties: 50 })),
    linkUrl: Type.Optional(Type.String({ maxLength: 2000 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    assignee: Type.Optional(Type.String({ maxLength: 200 })),
    dueDate: Type.Optional(Type.String({ maxLength: 40 })),
    statusId: Type.Optional(StatusRefInput),
  },
  { additionalProperties: false },
);
const BoardRef = Type.Object({ boardId: Uuid }, { additionalProperties: false });

/** Follow-ups: task boards, their tasks, and the comments posted from this app. */
export const FOLLOW_UP_CHANNELS = {
  /** The organization's boards (GET /task-boards where the service has it); offline, the last list read. */
  'followUps.boards': channel<Sourced<TaskBoard[]>>()(None),
  /** POST /task-boards; without statuses and fields the service applies its default template. */
  'followUps.createBoard': channel<TaskBoard>()(
    Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        statuses: Type.Optional(BoardStatusesInput),
        fields: Type.Optional(BoardFieldsInput),
      },
      { additionalProperties: false },
    ),
  ),
  /** A board and all its tasks; offline, what main kept of the last whole read. */
  'followUps.board': channel<Sourced<BoardView>>()(BoardRef),
  /**
   * PATCH board with the complete arrays. A 409 comes back as kind `conflict` with
   * `boardConflict`; send again with `migrateTo` and/or `dropInvalidFieldValues`.
   */
  'followUps.saveBoard': channel<TaskBoard>()(
    Type.Object(
      {
        boardId: Uuid,
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        statuses: Type.Optional(BoardStatusesInput),
        fields: Type.Optional(BoardFieldsInput),
        migrateTo: Type.Optional(StatusRefInput),
        dropInvalidFieldValues: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  ),
  /** Bulk creation, all or nothing. */
  'followUps.addTasks': channel<Task[]>()(
    Type.Object(
      { boardId: Uuid, items: Type.Array(TaskInputSchema, { minItems: 1, maxItems: 100 }) },
      { additionalProperties: false },
    ),
  ),
  /** The tasks of one visit (groupKey) on every board. */
  'followUps.group': channel<Sourced<GroupFollowUps>>()(
    Type.Object(
      { groupKey: Type.String({ minLength: 1, maxLength: 200 }) },
      { additionalProperties: false },
    ),
  ),
  /** PATCH task: `fields` is a merge patch (null deletes); null text is unchanged, "" clears. */
  'followUps.patchTask': channel<Task>()(
    Type.Object(
      {
        taskId: Uuid,
        patch: Type.Object(
          {
            statusId: Type.Optional(StatusRefInput),
            fields: Type.Optional(
              Type.Record(
                FieldKey,
                Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Null()]),
                { maxProperties: 50 },
              ),
            ),
            description: NullableTextInput(10_000),
            assignee: NullableTextInput(200),
            dueDate: NullableTextInput(40),
            completedAt: NullableTextInput(40),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  ),
  /** POST a comment; main keeps it, since the service cannot list comments. */
  'followUps.comment': channel<Comment>()(
    Type.Object(
      { taskId: Uuid, body: Type.String({ minLength: 1, maxLength: 10_000 }) },
      { additionalProperties: false },
    ),
  ),
} as const;
