import type { Comment, PatchTaskRequest, Task, TaskBoard, TaskStatus } from '../../../shared/api';
import type {
  BoardView,
  ChannelInput,
  EarmarkApi,
  IpcError,
  IpcResult,
  ReadSource,
  Sourced,
} from '../../../shared/ipc';
import {
  categoryOf,
  countsByStatus,
  matchesFilter,
  statusOf,
  visitsOf,
  type CategoryFilter,
  type Visit,
} from './task-words';

export type Layout = 'columns' | 'list';

/**
 * The Follow-ups screen's state, at module level so that leaving the screen (to open a recording)
 * and coming back keeps the board, filter, layout and selection; another account starts over.
 */
export class FollowUpsStore {
  accountId: string | null = null;
  boards = $state.raw<TaskBoard[]>([]);
  boardsLoaded = $state(false);
  boardsSource = $state<ReadSource>('service');
  boardsError = $state<IpcError | null>(null);
  boardId = $state<string | null>(null);
  view = $state.raw<(BoardView & Omit<Sourced<BoardView>, 'value'>) | null>(null);
  loading = $state(false);
  error = $state<IpcError | null>(null);
  filter = $state<CategoryFilter>('open');
  layout = $state<Layout>('columns');
  selectedTaskId = $state<string | null>(null);
  /** The last move of a task to another column, when the service refused it. */
  moveError = $state<IpcError | null>(null);
  private generation = 0;

  constructor(private readonly api: EarmarkApi) {}

  get board(): TaskBoard | null {
    return this.view?.board ?? this.boards.find((b) => b.id === this.boardId) ?? null;
  }

  get selected(): Task | null {
    return this.view?.tasks.find((t) => t.id === this.selectedTaskId) ?? null;
  }

  /** The board's tasks as last read (none before its first answer). */
  get tasks(): Task[] {
    return this.view?.tasks ?? [];
  }

  /** What is shown is this computer's copy: the service could not be asked. */
  get cached(): boolean {
    return this.view?.source === 'cache' || this.boardsSource === 'cache';
  }

  /** The tasks the filter shows (open, done or all). */
  get shown(): Task[] {
    const board = this.view?.board;
    return board ? this.tasks.filter((t) => matchesFilter(board, t, this.filter)) : [];
  }

  /** How many tasks each filter would show. */
  get categoryCounts(): Record<CategoryFilter, number> {
    const board = this.view?.board;
    const count = (category: 'open' | 'done') =>
      board ? this.tasks.filter((t) => categoryOf(board, t) === category).length : 0;
    return { open: count('open'), done: count('done'), all: this.tasks.length };
  }

  /** Tasks per status id, every status of the board included. */
  get countsByStatus(): Record<string, number> {
    const board = this.view?.board;
    return board ? countsByStatus(board, this.tasks) : {};
  }

  /** The columns the filter shows: the board's statuses of its category. */
  get columns(): TaskStatus[] {
    return (
      this.view?.board.statuses.filter(
        (s) => this.filter === 'all' || s.category === this.filter,
      ) ?? []
    );
  }

  /** A column's tasks (of those shown). */
  tasksIn(statusId: string): Task[] {
    return this.shown.filter((t) => t.statusId === statusId);
  }

  /** Tasks whose status the board no longer has (another app changed it): shown, not lost. */
  get strays(): Task[] {
    const board = this.view?.board;
    return board ? this.shown.filter((t) => !statusOf(board, t.statusId)) : [];
  }

  /** The tasks shown, by visit. */
  get visits(): Visit[] {
    return visitsOf(this.shown);
  }

  commentCount(taskId: string): number {
    return this.view?.comments[taskId]?.length ?? 0;
  }

  /** Another account: start over. */
  private adopt(accountId: string): void {
    if (accountId === this.accountId) return;
    this.accountId = accountId;
    this.boards = [];
    this.boardsLoaded = false;
    this.boardId = null;
    this.view = null;
    this.selectedTaskId = null;
    this.filter = 'open';
  }

  /** Called by each new screen: loads the boards again (fresh), keeping what is shown meanwhile. */
  attach(accountId: string): void {
    this.adopt(accountId);
    void this.loadBoards();
  }

  /** Opens a task of a board (from a recording's follow-ups), before the screen attaches. */
  show(accountId: string, boardId: string, taskId: string | null): void {
    this.adopt(accountId);
    if (this.boardId !== boardId) this.view = null;
    this.boardId = boardId;
    this.selectedTaskId = taskId;
    this.filter = 'all';
  }

  async loadBoards(): Promise<void> {
    const accountId = this.accountId;
    this.boardsError = null;
    const result = await this.api.invoke('followUps.boards', {});
    if (accountId !== this.accountId) return;
    this.boardsLoaded = true;
    if (!result.ok) {
      this.boardsError = result.error;
      return;
    }
    this.boards = result.value.value;
    this.boardsSource = result.value.source;
    if (!this.boards.some((b) => b.id === this.boardId)) {
      this.boardId = this.boards[0]?.id ?? null;
      this.view = null;
    }
    if (this.boardId) await this.loadBoard();
  }

  async loadBoard(): Promise<void> {
    const boardId = this.boardId;
    if (!boardId) return;
    const generation = ++this.generation;
    this.loading = true;
    this.error = null;
    const result = await this.api.invoke('followUps.board', { boardId });
    if (generation !== this.generation) return;
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    const { value: view, ...from } = result.value;
    this.view = { ...view, ...from };
    this.boards = this.boards.map((b) => (b.id === boardId ? view.board : b));
  }

  /** Opens a task's web link in the system's browser (main allows http and https only). */
  openExternal(url: string): void {
    void this.api.invoke('app.openExternal', { url });
  }

  selectBoard(boardId: string): void {
    if (boardId === this.boardId) return;
    this.boardId = boardId;
    this.view = null;
    this.selectedTaskId = null;
    void this.loadBoard();
  }

  async createBoard(input: ChannelInput<'followUps.createBoard'>): Promise<IpcResult<TaskBoard>> {
    const result = await this.api.invoke('followUps.createBoard', input);
    if (result.ok) {
      this.boards = [...this.boards, result.value];
      this.boardId = result.value.id;
      this.view = null;
      this.selectedTaskId = null;
      void this.loadBoard();
    }
    return result;
  }

  /** Saves the board (whole arrays); on success the board and its tasks are read again. */
  async saveBoard(input: ChannelInput<'followUps.saveBoard'>): Promise<IpcResult<TaskBoard>> {
    const result = await this.api.invoke('followUps.saveBoard', input);
    if (result.ok) {
      this.boards = this.boards.map((b) => (b.id === result.value.id ? result.value : b));
      if (this.view?.board.id === result.value.id)
        this.view = { ...this.view, board: result.value };
      void this.loadBoard();
    }
    return result;
  }

  private putTask(task: Task): void {
    if (!this.view || this.view.board.id !== task.boardId) return;
    this.view = { ...this.view, tasks: this.view.tasks.map((t) => (t.id === task.id ? task : t)) };
  }

  async patchTask(taskId: string, patch: PatchTaskRequest): Promise<IpcResult<Task>> {
    const result = await this.api.invoke('followUps.patchTask', {
      taskId,
      patch: {
        ...(patch.statusId === undefined ? {} : { statusId: patch.statusId }),
        ...(patch.fields === undefined ? {} : { fields: patch.fields }),
        ...(patch.description === undefined ? {} : { description: patch.description }),
        ...(patch.assignee === undefined ? {} : { assignee: patch.assignee }),
        ...(patch.dueDate === undefined ? {} : { dueDate: patch.dueDate }),
      },
    });
    if (result.ok) this.putTask(result.value);
    return result;
  }

  /**
   * A task dropped on another status's column takes that status (its details' status menu does
   * the same from the keyboard). Nothing is sent for a drop on its own column.
   */
  async moveTask(taskId: string, statusId: string): Promise<void> {
    const task = this.view?.tasks.find((t) => t.id === taskId);
    if (!task || task.statusId === statusId) return;
    this.moveError = null;
    const result = await this.patchTask(taskId, { statusId });
    if (!result.ok) this.moveError = result.error;
  }

  async comment(taskId: string, body: string): Promise<IpcResult<Comment>> {
    const result = await this.api.invoke('followUps.comment', { taskId, body });
    if (result.ok && this.view) {
      const comments = { ...this.view.comments };
      comments[taskId] = [...(comments[taskId] ?? []), result.value];
      this.view = { ...this.view, comments };
    }
    return result;
  }
}
