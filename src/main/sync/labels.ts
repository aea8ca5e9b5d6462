import type { Label, LabelListQuery } from '../../shared/api';
import { isApiError } from '../service-client/errors';
import type { RunContext } from './context';
import type { NotesQueue } from './notes-queue';

/**
 * Labels: every run lists the re-scan window (labels starting in the last `rescanWindowMs`)
 * again, then continues the history walk (pages back through everything older), whose cursor is
 * saved with each page. Listed rows that are new or changed, and unsettled ones in the window,
 * queue their notes (labels.get).
 */

export const HISTORY_STREAM = 'labels.history';

/** The history walk's saved state. */
export interface HistoryState {
  /** When this walk began: labels it covers that nothing has shown since were deleted. */
  walkStartedAt: number;
  /** The walk covers labels starting before this (the window's start when it began). */
  topMs: number;
  /** The next page holds labels starting at or before boundMs … */
  boundMs: number;
  /** … after the first `skip` of those starting exactly at boundMs (already stored). */
  skip: number;
  listed: number;
  total: number | null;
  /** Null while the walk is under way. */
  completedAt: number | null;
}

/** A keyset cursor over a listing sorted by start time, newest first. */
interface Cursor {
  boundMs: number | null;
  skip: number;
}

interface Page {
  items: Label[];
  total: number | null;
  next: Cursor;
  last: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * One page of labels starting at or after `fromMs` (when given) and at or before the cursor's
 * bound. A time keyset, not offsets: labels added while the walk goes on (newer ones, or late
 * uploads) cannot shift the pages under it.
 */
async function listPage(
  ctx: RunContext,
  fromMs: number | undefined,
  cursor: Cursor,
): Promise<Page> {
  const limit = ctx.tuning.labelPageSize;
  const query: LabelListQuery = {
    sortingProperty: 'FromTime',
    isSortingDescending: true,
    limit,
    offset: cursor.skip,
    ...(fromMs === undefined ? {} : { fromTime: iso(fromMs) }),
    ...(cursor.boundMs === null ? {} : { toTime: iso(cursor.boundMs + 1) }),
  };
  const { items, total } = await ctx.call((options) =>
    ctx.deps.api.labels.list(ctx.deps.organizationId, query, options),
  );
  const lastItem = items.at(-1);
  if (!lastItem) return { items, total, next: cursor, last: true };
  const boundMs = Date.parse(lastItem.fromTime);
  const atBound = items.filter((label) => Date.parse(label.fromTime) === boundMs).length;
  return {
    items,
    total,
    next: { boundMs, skip: atBound + (boundMs === cursor.boundMs ? cursor.skip : 0) },
    last: items.length < limit,
  };
}

/**
 * Lists the re-scan window and deletes what it no longer holds. A text window shorter than the
 * re-scan window (retention) shortens it: nothing older is brought into the cache.
 */
export async function scanWindow(ctx: RunContext, notes: NotesQueue): Promise<void> {
  const { write } = ctx.deps.cache;
  const now = ctx.tuning.now;
  const fromMs = Math.max(
    ctx.startedAt - ctx.tuning.rescanWindowMs,
    ctx.textFromMs ?? Number.NEGATIVE_INFINITY,
  );
  const recheck = {
    settleMs: ctx.tuning.notesSettleMs,
    refetchBefore: ctx.startedAt - ctx.tuning.notesRefreshMs,
  };
  let cursor: Cursor = { boundMs: null, skip: 0 };
  let first = true;
  for (;;) {
    const page = await listPage(ctx, fromMs, cursor);
    if (first && page.total !== null) ctx.progress.labelsToList += page.total;
    first = false;
    const stored = await write.storeLabelPage({ rows: page.items, seenAt: now(), recheck });
    account(ctx, page.items.length, stored.added);
    notes.add(stored.needNotes);
    ctx.progress.emit();
    if (page.last) break;
    cursor = page.next;
  }
  ctx.progress.labelsDeleted += await write.sweepLabels({
    fromMs,
    seenBefore: ctx.startedAt,
  });
}

function account(ctx: RunContext, listed: number, added: number): void {
  ctx.progress.labelsListed += listed;
  ctx.progress.labelsAdded += added;
  ctx.progress.labelsToList = Math.max(0, ctx.progress.labelsToList - listed);
}

/**
 * Continues (or begins) the history walk. Each page and the cursor after it are written in one
 * transaction, so a run killed at any point resumes from the last page it stored. The walk
 * goes back to the oldest label, or to the start of the clinic's text window (retention: older
 * records are neither listed nor brought in), and then deletes the labels it covers that
 * nothing showed since it began; older ones are the cleanup's. Records kept on this computer
 * ("Keep on this computer") that started before the window are asked for one by one instead, so
 * they stay current (and go when the service deleted them).
 * Returns whether this run resumed a walk and whether the walk is complete.
 */
export async function walkHistory(
  ctx: RunContext,
  notes: NotesQueue,
): Promise<{ resumed: boolean; complete: boolean }> {
  const { read, write } = ctx.deps.cache;
  const now = ctx.tuning.now;
  const saved = (await read.syncState(HISTORY_STREAM)) as HistoryState | null;
  const due =
    !saved ||
    (saved.completedAt !== null && ctx.startedAt - saved.completedAt >= ctx.tuning.fullRescanMs);
  if (saved && !due && saved.completedAt !== null) return { resumed: false, complete: true };
  const topMs = ctx.startedAt - ctx.tuning.rescanWindowMs;
  let state: HistoryState =
    saved && !due
      ? saved
      : {
          walkStartedAt: ctx.startedAt,
          topMs,
          boundMs: topMs - 1,
          skip: 0,
          listed: 0,
          total: null,
          completedAt: null,
        };
  const resumed = state.listed > 0;
  let first = true;
  // The walk's next page starts before the text window: there is nothing more to list.
  const beyondWindow = () => ctx.textFromMs !== undefined && state.boundMs < ctx.textFromMs;
  while (!beyondWindow()) {
    const page = await listPage(ctx, ctx.textFromMs, { boundMs: state.boundMs, skip: state.skip });
    if (first && page.total !== null) ctx.progress.labelsToList += page.total;
    first = false;
    state = {
      ...state,
      boundMs: page.next.boundMs ?? state.boundMs,
      skip: page.next.skip,
      listed: state.listed + page.items.length,
      total: state.total ?? (page.total === null ? null : state.listed + page.total),
    };
    const stored = await write.storeLabelPage({
      rows: page.items,
      seenAt: now(),
      state: { stream: HISTORY_STREAM, value: state, at: now() },
    });
    account(ctx, page.items.length, stored.added);
    notes.add(stored.needNotes);
    ctx.progress.emit();
    if (page.last) break;
  }
  const done: HistoryState = { ...state, completedAt: now() };
  ctx.progress.labelsDeleted += await write.sweepLabels(
    { fromMs: ctx.textFromMs, toMs: state.topMs, seenBefore: state.walkStartedAt },
    { stream: HISTORY_STREAM, value: done, at: now() },
  );
  if (ctx.textFromMs !== undefined) notes.add(await read.keptBefore(ctx.textFromMs));
  ctx.progress.emit();
  return { resumed, complete: true };
}

/** Failures of one label's answer, not of the service or the key. */
const LABEL_FAILURES = new Set(['server_error', 'invalid_response', 'bad_request']);

/**
 * labels.get for the notes queue: null when the label is gone (404), 'failed' when only this
 * label's answer failed (it stays marked and is tried again next run); anything else (offline,
 * a revoked key, cancelled) stops the run.
 */
export const fetchLabel =
  (ctx: RunContext) =>
  async (id: string): Promise<Label | null | 'failed'> => {
    try {
      return await ctx.call((options) => ctx.deps.api.labels.get(id, options));
    } catch (error) {
      if (isApiError(error) && error.kind === 'not_found') return null;
      if (isApiError(error) && LABEL_FAILURES.has(error.kind)) return 'failed';
      throw error;
    }
  };
