import type { FOLLOW_UP_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type FollowUpContext = Pick<CoreContext, 'followUps'>;

export const followUpHandlers = ({
  followUps,
}: FollowUpContext): RpcHandlers<typeof FOLLOW_UP_CHANNELS> => ({
  'followUps.boards': () => followUps.boards(),
  'followUps.createBoard': (request) => followUps.createBoard(request),
  'followUps.board': ({ boardId }) => followUps.board(boardId),
  'followUps.saveBoard': (request) => followUps.saveBoard(request),
  'followUps.addTasks': ({ boardId, items }) => followUps.addTasks(boardId, items),
  'followUps.group': ({ groupKey }) => followUps.group(groupKey),
  'followUps.patchTask': ({ taskId, patch }) => followUps.patchTask(taskId, patch),
  'followUps.comment': ({ taskId, body }) => followUps.comment(taskId, body),
});
