import type { FieldType, Task, TaskBoard, TaskStatus } from '../../../shared/api';
import { RECORD_LINK_PREFIX } from '../../../shared/ipc/constants';

/** Follow-ups in the interface's words, and the small rules of boards the screens share. */

export const FIELD_TYPE_WORDS: Record<FieldType, string> = {
  text: 'Text',
  number: 'Number',
  date: 'Date',
  select: 'Choice list',
};

/** The three follow-ups a visit usually needs (issue 8: call, invoice, recheck). */
export const SUGGESTED_FOLLOW_UPS = ['Call the owner', 'Send the invoice', 'Book the recheck'];

export type CategoryFilter = 'open' | 'done' | 'all';

/** A status id or field key from its name: `[a-z][a-z0-9_]*`, at most 40, unique among `taken`. */
export function slugFor(name: string, taken: Iterable<string>, fallback: string): string {
  const used = new Set(taken);
  let base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .replace(/_+$/, '')
    .slice(0, 36);
  if (base === '') base = fallback;
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}_${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** The record a task was made from, when its link is Earmark's own (`earmark://record/<labelId>`). */
export function recordOfLink(linkUrl: string): string | null {
  if (!linkUrl.startsWith(RECORD_LINK_PREFIX)) return null;
  const id = linkUrl.slice(RECORD_LINK_PREFIX.length);
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id : null;
}

export const recordLink = (labelId: string) => `${RECORD_LINK_PREFIX}${labelId}`;

export const isWebLink = (url: string) => /^https?:\/\//i.test(url);

export function statusOf(board: TaskBoard, statusId: string): TaskStatus | undefined {
  return board.statuses.find((status) => status.id === statusId);
}

/** A task's category; a status the board no longer has counts as open. */
export const categoryOf = (board: TaskBoard, task: Task) =>
  statusOf(board, task.statusId)?.category ?? 'open';

export function matchesFilter(board: TaskBoard, task: Task, filter: CategoryFilter): boolean {
  return filter === 'all' || categoryOf(board, task) === filter;
}

/** Tasks per status id (every status of the board, zero included). */
export function countsByStatus(board: TaskBoard, tasks: readonly Task[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(board.statuses.map((s) => [s.id, 0]));
  for (const task of tasks) counts[task.statusId] = (counts[task.statusId] ?? 0) + 1;
  return counts;
}

export interface Visit {
  groupKey: string;
  tasks: Task[];
}

/** Tasks grouped by visit (groupKey), groups in the order of their first task; "" last. */
export function visitsOf(tasks: readonly Task[]): Visit[] {
  const groups = new Map<string, Task[]>();
  for (const task of tasks) {
    const list = groups.get(task.groupKey);
    if (list) list.push(task);
    else groups.set(task.groupKey, [task]);
  }
  const visits = [...groups].map(([groupKey, list]) => ({ groupKey, tasks: list }));
  return [...visits.filter((v) => v.groupKey !== ''), ...visits.filter((v) => v.groupKey === '')];
}

/** The words naming a visit: its patient and doctor, as the tasks carry them. */
export function visitLabel(visit: Visit): string {
  const value = (key: string) =>
    visit.tasks.map((task) => task.fields[key]).find((v) => v !== undefined && v !== '');
  const patient = value('patient');
  const doctor = value('doctor');
  if (visit.groupKey === '') return 'Not part of a visit';
  const parts = [patient, doctor].filter((part) => part !== undefined).map(String);
  return parts.length > 0 ? parts.join(' · ') : 'Visit';
}

export { nameFromEmail } from '../../../shared/accounts/names';
