import { basename } from 'node:path';
import type { ExportProgressEvent, ExportRow, ExportSummary } from '../../shared/ipc';
import { AppError } from '../errors';
import type { AudioSource } from './download';
import { exportLabels, type ExportOptions, type ExportProgress, type ManifestRow } from './export';
import { folderProblem } from './export-folders';

/** An export's progress events come at most this often, besides one for every file's change of state. */
const PROGRESS_INTERVAL_MS = 100;

export interface ExportJob {
  exportId: string;
  /** A registered folder's path. */
  folder: string;
  /** The labels to export: ids at hand, or a filter paged through (stops on the signal). */
  labelIds(signal: AbortSignal): Promise<readonly string[]>;
  source: AudioSource;
  transcripts: boolean;
  onExists: NonNullable<ExportOptions['onExists']>;
}

interface Run {
  abort: AbortController;
  folder: string;
  /** Until it answers (a summary or an error); then its folder may be opened. */
  running: boolean;
  /** Settles when it has answered. */
  settled: Promise<unknown>;
}

const exportRow = (row: ManifestRow): ExportRow => ({
  labelId: row.labelId,
  patient: row.patient,
  type: row.type,
  status: row.status,
  file: row.file,
  bytes: row.bytes,
  sha256: row.sha256,
  transcriptFile: row.transcriptFile,
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
 * cancellable, and remembered so that the folder of a finished one can be opened.
 */
export class ExportRuns {
  private readonly runs = new Map<string, Run>();

  constructor(private readonly emit: (event: ExportProgressEvent) => void) {}

  async run(job: ExportJob): Promise<ExportSummary> {
    const { exportId, folder } = job;
    if (this.runs.has(exportId)) {
      throw new AppError(
        'conflict',
        `The export ${exportId} has already been started; start a new export instead.`,
      );
    }
    const run: Run = {
      abort: new AbortController(),
      folder,
      running: true,
      settled: Promise.resolve(),
    };
    this.runs.set(exportId, run);
    const answer = this.perform(job, run);
    run.settled = answer.then(
      () => undefined,
      () => undefined,
    );
    return answer;
  }

  private async perform(job: ExportJob, run: Run): Promise<ExportSummary> {
    const { exportId, folder } = job;
    const { signal } = run.abort;

    const progress = progressEvents(exportId, this.emit);
    try {
      const ids = await job.labelIds(signal).catch((error: unknown) => {
        if (signal.aborted) return null;
        throw error;
      });
      // Cancelled while the filter was paged through: nothing was written.
      if (ids === null || signal.aborted)
        return { exportId, status: 'cancelled', folder, rows: [], manifestFiles: [] };
      const result = await exportLabels(job.source, ids, {
        folder,
        transcripts: job.transcripts,
        onExists: job.onExists,
        signal,
        onProgress: progress.report,
      });
      return {
        exportId,
        status: result.status,
        folder: result.folder,
        rows: result.rows.map(exportRow),
        manifestFiles: [basename(result.manifestCsv), basename(result.manifestJson)],
      };
    } catch (error) {
      throw stoppedBy(error, folder, progress.exported());
    } finally {
      run.running = false;
    }
  }

  /** Cancels every export still running and waits for each to clean up (the app is closing). */
  async stopAll(): Promise<void> {
    const running = [...this.runs.values()].filter((run) => run.running);
    for (const run of running) run.abort.abort();
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
