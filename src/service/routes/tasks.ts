import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  BulkCreateRequest,
  Comment,
  CreateBoardRequest,
  CreateCommentRequest,
  PatchBoardQuery,
  PatchBoardRequest,
  PatchTaskRequest,
  Task,
  TaskBoard,
  TaskBoardList,
  TaskInput,
  TaskItems,
  TaskList,
  TaskListQuery,
  Uuid,
} from '../../shared/api';
import { reachable, type Principal } from '../http/auth';
import type { RouteModule, ServiceContext } from '../http/context';

const BoardParams = Type.Object({ boardId: Uuid });
const TaskParams = Type.Object({ taskId: Uuid });

const visibleBoard = ({ taskStore }: ServiceContext, principal: Principal, boardId: string) =>
  reachable(
    principal,
    taskStore.board(boardId),
    (b) => b.organizationId,
    `No task board ${boardId}.`,
  );

/** A task the caller may reach, with its board. */
function visibleTask(context: ServiceContext, principal: Principal, taskId: string) {
  const task = context.taskStore.task(taskId);
  const board = task && context.taskStore.board(task.boardId);
  reachable(principal, board, (b) => b.organizationId, `No task ${taskId}.`);
  return { task: task!, board: board! };
}

/** Seed §4.4 task boards and tasks; any member of the organization, with the `tasks` scope. */
export const taskRoutes: RouteModule = (fastify, context) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { tasks, taskStore } = context;
  const config = { scope: 'tasks' } as const;

  app.post(
    '/task-boards',
    { config, schema: { body: CreateBoardRequest, response: { 201: TaskBoard } } },
    async (request, reply) =>
      reply.code(201).send(tasks.createBoard(request.principal.organizationId, request.body)),
  );

  app.get(
    '/task-boards',
    { config, schema: { response: { 200: TaskBoardList } } },
    async (request) => ({
      items: taskStore.boards(request.principal.organizationId),
    }),
  );

  app.get(
    '/task-boards/:boardId',
    { config, schema: { params: BoardParams, response: { 200: TaskBoard } } },
    async (request) => visibleBoard(context, request.principal, request.params.boardId),
  );

  app.patch(
    '/task-boards/:boardId',
    {
      config,
      schema: {
        params: BoardParams,
        querystring: PatchBoardQuery,
        body: PatchBoardRequest,
        response: { 200: TaskBoard },
      },
    },
    async (request) =>
      tasks.patchBoard(
        visibleBoard(context, request.principal, request.params.boardId),
        request.body,
        request.query,
      ),
  );

  app.post(
    '/task-boards/:boardId/tasks',
    { config, schema: { params: BoardParams, body: TaskInput, response: { 201: Task } } },
    async (request, reply) => {
      const board = visibleBoard(context, request.principal, request.params.boardId);
      const [task] = tasks.createTasks(board, [request.body], () => '');
      return reply.code(201).send(task!);
    },
  );

  app.post(
    '/task-boards/:boardId/tasks/bulk',
    {
      config,
      schema: { params: BoardParams, body: BulkCreateRequest, response: { 201: TaskItems } },
    },
    async (request, reply) => {
      const board = visibleBoard(context, request.principal, request.params.boardId);
      const items = tasks.createTasks(board, request.body.items, (i) => `/items/${i}`);
      return reply.code(201).send({ items });
    },
  );

  app.get(
    '/task-boards/:boardId/tasks',
    {
      config,
      schema: { params: BoardParams, querystring: TaskListQuery, response: { 200: TaskList } },
    },
    async (request) =>
      tasks.listTasks(
        visibleBoard(context, request.principal, request.params.boardId),
        request.query,
      ),
  );

  app.get(
    '/tasks/:taskId',
    { config, schema: { params: TaskParams, response: { 200: Task } } },
    async (request) => visibleTask(context, request.principal, request.params.taskId).task,
  );

  app.patch(
    '/tasks/:taskId',
    { config, schema: { params: TaskParams, body: PatchTaskRequest, response: { 200: Task } } },
    async (request) => {
      const { task, board } = visibleTask(context, request.principal, request.params.taskId);
      return tasks.patchTask(board, task, request.body);
    },
  );

  app.post(
    '/tasks/:taskId/comments',
    {
      config,
      schema: { params: TaskParams, body: CreateCommentRequest, response: { 201: Comment } },
    },
    async (request, reply) => {
      const { task, board } = visibleTask(context, request.principal, request.params.taskId);
      const comment = tasks.addComment(board, task, request.body.body, request.principal.email);
      return reply.code(201).send(comment);
    },
  );
};
