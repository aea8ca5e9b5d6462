import { Type, type Static } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from './common';
import { EVENT_TYPES } from './values';

export const EVENT_ID_PREFIX = 'evt_';
export const TEST_EVENT_ID_PREFIX = 'evt_test_';

/** Seed §6.2 delivery body. */
export const ServiceEvent = Type.Object({
  id: Type.String(),
  type: StringEnum(EVENT_TYPES),
  organizationId: Uuid,
  timestamp: Timestamp,
  data: Type.Record(Type.String(), Type.Unknown()),
});
export type ServiceEvent = Static<typeof ServiceEvent>;

export interface EventData {
  new_label: { labelId: string };
  label_updated: { labelId: string };
  label_deleted: { labelId: string };
  conversation_created: { conversationId: string; deviceId: string };
  conversation_completed: { conversationId: string; deviceId: string };
  ping: { test: true };
  task_created: { taskId: string; boardId: string };
  task_updated: { taskId: string; boardId: string; changed: string[] };
  task_comment_added: { taskId: string; boardId: string; commentId: string };
}
