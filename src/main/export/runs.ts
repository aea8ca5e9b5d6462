import { basename } from 'node:path';
import type {
  ExportProgressEvent,
  ExportRow,
  ExportSummary,
  UnfinishedExport,
} from '../../shared/ipc';
import { AppError } from '../base/errors';
import {
  exportLabels,
  type ExportOptions,
  type ExportProgress,
  type ExportSource,
  type ManifestRow,
} from './export';
import { discardExportPartial } from './export-audio';
import { folderProblem } from './folders';
import { removeQuietly, removeStaleTemporaries } from '../base/atomic-write';

/** When this process started: temporary files older than that are a crash's leftovers. */
const STARTED_AT = performance.timeOrigin;
import type { ExportJournal, JournalRecord, JournalWriter } from './journal';

/** An export's progress events come at most this often, besides one for every file's change of state. */
const PROGRESS_INTERVAL_MS = 100;

export interface ExportJob {
  exportId: string;
  /** The account whose recordings these are (its journal resumes only under it). */
  accountId: string;
  /** A registered folder's path. */
  folder: string;
  /** The labels to export: ids at hand, or a filter paged through (stops on the signal). */
  labelIds(signal: AbortSignal): Promise<readonly string[]>;
  source: ExportSource;
  transcripts: boolean;
  onExists: NonNullable<ExportOptions['onExists']>;
}

/** What a run exports and how, and where it journals the rows it finishes. */
interface Plan {
  source: ExportSource;
  ids: readonly string[];
  transcripts: boolean;
  onExists: ExportJob['onExists'];
  /** A resume's finished rows; undefined for a new export (see ExportOptions.done). */
  done: ManifestRow[] | undefined;
  /** Null when the journal could not be begun: the export runs, unresumable. */
  writer: JournalWriter | null;
}

/** How a run goes on: a new export, or the rest of one its journal kept. */
type Start = { job: ExportJob } | { resume: JournalRecord; source: ExportSource };

interface Run {
  abort: AbortController;
  /** The account whose recordings it exports. */
  accountId: string;
  folder: string;
  /** Where its progress is journaled: its own id, or the export it resumes. */
  journalId: string;
  /** Until it answers (a summary or an error); then its folder may be opened. */
  running: boolean;
  /** The recordings it exports, once known (a filter is paged through first). */
  labelIds: readonly string[];
  /** Settles when it has answered. */
  settled: Promise<unknown>;
  /**
   * Stopped by the app (it is closing, or another account became active), not by the user:
   * its journal stays, so that it can be resumed.
   */
  stoppedByApp: boolean;
}

const exportRow = (row: ManifestRow): ExportRow => ({
  labelId: row.labelId,
  patient: row.patient,
  type: row.type,
  status: row.status,
  file: row.file,
  bytes: row.bytes,
  sha256: row.sha256,
  textFiles: [row.transcriptFile, row.subtitlesFile, row.clinicalNoteFile].filter(
    (name): name is string => typeof name === 'string',
  ),
  speakers: row.speakers ?? null,
  error: row.error,
});

/**
 * Progress to events: every change of a file's state goes out, byte counts at most every
 * PROGRESS_INTERVAL_MS (three downloads at once would otherwise send 30 a second). Counts the
 * files exported, for the message of an export that a folder error stops.
 */
function progressEvents(exportId: string, emit: (event: ExportProgressEvent) => void) {
  const states = new Map<string, string>();
  let lastAt = Number.NEGATIVE_INFINITY;
  let exported = 0;
  return {
    exported: () => exported,
    report(progress: ExportProgress) {
      const { labelId, state } = progress.file;
      const changed = states.get(labelId) !== state;
      const now = performance.now();
      if (!changed && now - lastAt < PROGRESS_INTERVAL_MS) return;
      states.set(labelId, state);
      if (changed && state === 'exported') exported++;
      lastAt = now;
      emit({ exportId, ...progress });
    },
  };
}

/** The folder error that stopped an export, saying what it had already written. */
function stoppedBy(error: unknown, folder: string, exported: number): unknown {
  const problem = folderProblem(error, folder);
  if (!(problem instanceof AppError) || problem === error || exported === 0) return problem;
  const files = exported === 1 ? '1 recording was' : `${exported} recordings were`;
  return new AppError(
    problem.kind,
    `${problem.message} ${files} exported before it stopped (whole files; no manifest was written).`,
  );
}

/**
 * The exports of this run of the app, by the id the renderer gave each: one run per id,
 * cancellable, and remembered so that the folder of a finished one can be opened. Each keeps a
 * journal (export-journal.ts) until it answers: an export stopped by the app (closing, another
 * account active), a crash or a folder error can be resumed, after a restart too.
 */
export class ExportRuns {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly emit: (event: ExportProgressEvent) => void,
    private readonly journal: ExportJournal,
  ) {}

  /** Starts a new export. */
  run(job: ExportJob): Promise<ExportSummary> {
    return this.start(job.exportId, job.folder, { job });
  }

  /** Goes on with an unfinished export (see ExportJournal), under a new run id. */
  async resume(exportId: string, journalId: string, source: ExportSource): Promise<ExportSummary> {
    const record = await this.journal.load(journalId);
    if (this.isRunning(journalId))
      throw new AppError('conflict', 'This export is already running.');
    return this.start(exportId, record.header.folder, { resume: record, source });
  }

  /** The account's exports that stopped before they finished (none of them running now). */
  async unfinished(accountId: string): Promise<UnfinishedExport[]> {
    return (await this.journal.unfinished(accountId)).filter((u) => !this.isRunning(u.journalId));
  }

  private isRunning(journalId: string): boolean {
    return [...this.runs.values()].some((run) => run.running && run.journalId === journalId);
  }

  /** Gives up an unfinished export: its exported files stay, its partial downloads go. */
  async discard(journalId: string): Promise<void> {
    if (this.isRunning(journalId)) {
      throw new AppError('conflict', 'This export is running: cancel it first.');
    }
    const { header, rows } = await this.journal.load(journalId);
    const finished = new Set(rows.map((row) => row.labelId));
    for (const labelId of header.labelIds) {
      if (!finished.has(labelId))
        await discardExportPartial(header.folder, labelId).catch(() => {});
    }
    await removeStaleTemporaries(header.folder, STARTED_AT);
    await this.journal.remove(journalId);
  }

  private async start(exportId: string, folder: string, start: Start): Promise<ExportSummary> {
    if (this.runs.has(exportId)) {
      throw new AppError(
        'conflict',
        `The export ${exportId} has already been started; start a new export instead.`,
      );
    }
    const run: Run = {
      abort: new AbortController(),
      accountId: 'resume' in start ? start.resume.header.accountId : start.job.accountId,
      folder,
      journalId: 'resume' in start ? start.resume.header.journalId : exportId,
      running: true,
      labelIds: [],
      settled: Promise.resolve(),
      stoppedByApp: false,
    };
    this.runs.set(exportId, run);
    const answer = this.perform(exportId, start, run);
    run.settled = answer.then(
      () => undefined,
      () => undefined,
    );
    return answer;
  }

  /** What to export and how, and its journal: begun for a new export, reopened for a resume. */
  private async prepare(start: Start, run: Run): Promise<Plan | null> {
    if ('resume' in start) {
      const { header, rows } = start.resume;
      await removeStaleTemporaries(header.folder, STARTED_AT);
      return {
        source: start.source,
        ids: header.labelIds,
        transcripts: header.transcripts,
        onExists: header.onExists,
        done: rows,
        // Without the key (locked meanwhile) the export still runs; it just cannot be resumed.
        writer: await this.journal.writer(header).catch(() => null),
      };
    }
    const { job } = start;
    const ids = await job.labelIds(run.abort.signal).catch((error: unknown) => {
      if (run.abort.signal.aborted) return null;
      throw error;
    });
    // Cancelled while the filter was paged through: nothing was written.
    if (ids === null || run.abort.signal.aborted) return null;
    const writer: JournalWriter | null = await this.journal
      .begin({
        journalId: job.exportId,
        accountId: job.accountId,
        folder: job.folder,
        labelIds: [...ids],
        transcripts: job.transcripts,
        onExists: job.onExists,
        startedAt: new Date().toISOString(),
      })
      // Without a journal the export still runs; it just cannot be resumed.
      .catch(() => null);
    const { source, transcripts, onExists } = job;
    return { source, ids, transcripts, onExists, done: undefined, writer };
  }

  private async perform(exportId: string, start: Start, run: Run): Promise<ExportSummary> {
    const { folder } = run;
    const { signal } = run.abort;

    const progress = progressEvents(exportId, this.emit);
    try {
      const plan = await this.prepare(start, run);
      if (!plan) return { exportId, status: 'cancelled', folder, rows: [], manifestFiles: [] };
      run.labelIds = plan.ids;
      const result = await exportLabels(plan.source, plan.ids, {
        folder,
        transcripts: plan.transcripts,
        onExists: plan.onExists,
        signal,
        onProgress: progress.report,
        done: plan.done,
        onRow: (row) => plan.writer?.append(row),
      });
      await plan.writer?.flushed();
      const manifestFiles = [result.manifestCsv, result.manifestJson];
      if (run.stoppedByApp && result.status === 'cancelled') {
        // Stopped by the app, not by the user: it is resumed later, and the resumed run writes
        // the manifest of every recording; this partial one would only mislead.
        await Promise.all(manifestFiles.map((path) => removeQuietly(path)));
        manifestFiles.length = 0;
      } else {
        // It answered: finished, or cancelled by the user.
        await this.journal.remove(run.journalId);
      }
      return {
        exportId,
        status: result.status,
        folder: result.folder,
        rows: result.rows.map(exportRow),
        manifestFiles: manifestFiles.map((path) => basename(path)),
      };
    } catch (error) {
      // A folder error after some files: resumable once the folder takes files again.
      if (!run.stoppedByApp && progress.exported() === 0) await this.journal.remove(run.journalId);
      throw stoppedBy(error, folder, progress.exported());
    } finally {
      run.running = false;
    }
  }

  /** The recordings the account's running exports export (a cleanup leaves them be). */
  recordsInUse(accountId: string): string[] {
    return [...this.runs.values()]
      .filter((run) => run.running && run.accountId === accountId)
      .flatMap((run) => run.labelIds);
  }

  /** Stops every export still running and waits for each to clean up (the app is closing). */
  stopAll(): Promise<void> {
    return this.stopWhere(() => true);
  }

  /**
   * Stops the running exports of every account but this one (it became active; null: none is)
   * and waits for each to answer: cancelled, resumable when their account is active again. An
   * export reads through the active account's connection, which another account's calls close.
   */
  stopAllBut(accountId: string | null): Promise<void> {
    return this.stopWhere((run) => run.accountId !== accountId);
  }

  /** Stops the account's running exports and waits for each to answer (cancelled, resumable). */
  stopAccount(accountId: string): Promise<void> {
    return this.stopWhere((run) => run.accountId === accountId);
  }

  private async stopWhere(chosen: (run: Run) => boolean): Promise<void> {
    const running = [...this.runs.values()].filter((run) => run.running && chosen(run));
    for (const run of running) {
      run.stoppedByApp = true;
      run.abort.abort();
    }
    await Promise.all(running.map((run) => run.settled));
  }

  /** Stops a running export (its summary then says cancelled); a finished one stays as it is. */
  cancel(exportId: string): void {
    const run = this.runs.get(exportId);
    if (!run) throw new AppError('not_found', 'No export with this id has been started.');
    run.abort.abort();
  }

  /** The folder of an export that has finished (or stopped on an error) in this run of the app. */
  finishedFolder(exportId: string): string {
    const run = this.runs.get(exportId);
    if (!run) {
      throw new AppError('not_found', 'No export with this id has run since Earmark started.');
    }
    if (run.running) {
      throw new AppError('conflict', 'This export has not finished; its folder opens when it has.');
    }
    return run.folder;
  }
}
