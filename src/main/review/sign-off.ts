import type { TaskBoard } from '../../shared/api';
import { RECORD_LINK_PREFIX, SIGN_OFF_BOARD_NAME, type SignOff } from '../../shared/ipc';
import { recordTypeLabel } from '../../shared/record/record-kinds';
import type { ActiveService } from '../connection/active-service';
import type { Cache } from '../cache';
import { AppError } from '../base/errors';
import { allTasks, listBoards } from '../follow-ups/follow-ups';
import type { ServiceClient } from '../service-client/connect';
import type { Review } from './review';

/** The sign-off board's statuses: a signed-off record's task is created done. */
const SIGNED_OFF_STATUS = 'signed_off';
const SIGN_OFF_BOARD = {
  name: SIGN_OFF_BOARD_NAME,
  statuses: [
    { id: 'to_sign_off', name: 'To sign off', category: 'open' as const },
    { id: SIGNED_OFF_STATUS, name: 'Signed off', category: 'done' as const },
  ],
  fields: [],
};

export interface SignOffsDeps {
  service: Pick<ActiveService, 'call'>;
  cache(): Promise<Cache>;
  review: Pick<Review, 'requireSignOff' | 'refresh' | 'record'>;
  /** The user's name, as the task's assignee. */
  userName(): string;
  now?: () => number;
}

/**
 * Clinic sign-off, through the only shared place the API lets a client write: task boards. The
 * first sign-off creates the clinic's "Earmark sign-off" board; each signed-off record is one
 * task there (groupKey the record's id, a link to it, the user's name as assignee, the time as
 * completedAt), created in its done status. Every desktop reads the board after its sync and
 * leaves signed-off records out of its queue. Nothing is written while sign-off is off.
 */
export class SignOffs {
  private readonly now: () => number;

  constructor(private readonly deps: SignOffsDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Signs a record off; a record already signed off answers who did, and writes nothing. */
  async signOff(labelId: string): Promise<SignOff> {
    await this.deps.review.requireSignOff();
    const known = await this.deps.review.record(labelId);
    if (known.signedOff) return known.signedOff;
    const { read, write } = await this.deps.cache();
    const label = await read.label(labelId);
    if (!label)
      throw new AppError('not_found', 'This recording is not on this computer yet: sync first.');
    const at = new Date(this.now()).toISOString();
    const by = this.deps.userName();
    const { board, task } = await this.deps.service.call(async (service) => {
      const board =
        (await this.boards(service))[0] ?? (await service.api.taskBoards.create(SIGN_OFF_BOARD));
      const [created] = await service.api.tasks.bulkCreate(board.id, [
        {
          title:
            `Signed off: ${recordTypeLabel(label.type)} of ${label.fromTime}${label.patient ? `, ${label.patient.name}` : ''}`.slice(
              0,
              300,
            ),
          groupKey: labelId,
          linkUrl: `${RECORD_LINK_PREFIX}${labelId}`,
          assignee: by,
          statusId: SIGNED_OFF_STATUS,
        },
      ]);
      const task = await service.api.tasks.patch(created!.id, { completedAt: at });
      return { board, task };
    });
    await write.storeBoards([board], this.now());
    await write.storeTasks([task], this.now());
    await this.deps.review.refresh();
    return { by: task.assignee || by, at: task.completedAt || at };
  }

  /** Reads the clinic's sign-off board(s) whole into the cache (after each sync). */
  async refresh(): Promise<void> {
    const read = await this.deps.service.call(async (service) => {
      const boards = await this.boards(service);
      return Promise.all(
        boards.map(async (board) => ({ board, ...(await allTasks(service, board.id)) })),
      );
    });
    const { write } = await this.deps.cache();
    const at = this.now();
    for (const { board, tasks, total } of read) {
      await write.storeBoards([board], at);
      await write.storeTasks(tasks, at, { boardId: board.id, total });
    }
    await this.deps.review.refresh();
  }

  /** The clinic's sign-off boards, oldest first (two desktops may have made one at once). */
  private async boards(service: ServiceClient): Promise<TaskBoard[]> {
    return (await listBoards(service, this.deps.cache))
      .filter((board) => board.name === SIGN_OFF_BOARD_NAME)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }
}
