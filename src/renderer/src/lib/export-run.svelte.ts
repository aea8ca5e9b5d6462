import type {
  AppInfo,
  EarmarkApi,
  ExportFileState,
  ExportFolder,
  ExportRow,
  ExportSummary,
  IpcError,
} from '../../../shared/ipc';
import type { ExportDialogStore, ExportSubject } from './export-dialog.svelte';
import { EXPORT_STATE_WORDS, SUMMARY_STATES } from './export-words';

export type OnExists = 'keep-both' | 'replace' | 'skip';

export interface FileProgress {
  labelId: string;
  state: ExportFileState;
  bytesDone: number;
  bytesTotal: number | null;
}

/** Finished files listed under the running ones; the manifest lists them all. */
const FINISHED_SHOWN = 50;

const isRunning = (file: FileProgress) => file.state === 'downloading' || file.state === 'waiting';

/**
 * One export dialog's run (its state and IPC calls): the folder (the system's dialog in
 * Electron, a typed path in the browser shell), the run with its progress overall and per file
 * (`export.progress`), Cancel, the summary, Retry of what failed or was cancelled (into the same
 * folder), Open folder; or, given an unfinished export, going on with it (`export.resume`).
 */
export class ExportRunStore {
  info = $state.raw<AppInfo | null>(null);
  /** The folder chosen in the system's dialog (Electron). */
  folder = $state.raw<ExportFolder | null>(null);
  phase = $state<'setup' | 'running' | 'done'>('setup');
  busy = $state(false);
  error = $state.raw<{ message: string; detail?: string } | null>(null);
  cancelling = $state(false);
  overall = $state({ filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 });
  files = $state<Record<string, FileProgress>>({});
  /** File ids in the order their first progress came. */
  seen = $state<string[]>([]);
  summary = $state.raw<ExportSummary | null>(null);
  /** Set by Retry: the recordings the last run did not export, exported now instead. */
  retryIds = $state.raw<string[] | null>(null);
  /** The folder typed, where the shell takes a path (the browser shell). */
  path = $state('');
  /** Export the transcripts and notes beside the audio. */
  transcripts = $state(true);
  onExists = $state<OnExists>('keep-both');

  private exportId = '';
  /** The folder of the last run: a retry goes there too. */
  private lastTarget: ExportFolder | null = null;

  constructor(
    private readonly api: EarmarkApi,
    /** The dialog the run shows in (it says in the sidebar how a hidden run goes). */
    private readonly dialog: ExportDialogStore,
    private readonly subject: () => ExportSubject,
    private readonly count: () => number,
  ) {}

  /** What this run exports: the subject, or after Retry what the last run did not. */
  get exporting(): ExportSubject {
    return this.retryIds ? { ids: this.retryIds } : this.subject();
  }

  get total(): number {
    return this.retryIds?.length ?? this.count();
  }

  /** The unfinished export this dialog goes on with, if that is its subject. */
  get resuming() {
    const subject = this.subject();
    return 'resume' in subject ? subject.resume : null;
  }

  /** Running files first (their bars move), then the most recently finished. */
  get shownFiles(): FileProgress[] {
    const all = this.seen.map((id) => this.files[id]!);
    return [
      ...all.filter(isRunning),
      ...all
        .filter((f) => !isRunning(f))
        .reverse()
        .slice(0, FINISHED_SHOWN),
    ];
  }

  /**
   * Whether every file's size is known: until then a byte total would read as nearly done, so
   * the data shows as a count only.
   */
  get sizesKnown(): boolean {
    return (
      this.seen.length === this.overall.filesTotal &&
      this.seen.every((id) => {
        const file = this.files[id]!;
        return file.bytesTotal !== null || !isRunning(file);
      })
    );
  }

  /** What a retry would export: the recordings that failed or were cancelled. */
  get unfinished(): string[] {
    return (
      this.summary?.rows
        .filter((row) => row.status === 'failed' || row.status === 'cancelled')
        .map((row) => row.labelId) ?? []
    );
  }

  /** The export can start: the settings are read, a folder is chosen or typed, nothing runs. */
  canStart(offline: boolean): boolean {
    const info = this.info;
    return (
      info !== null &&
      !offline &&
      !this.busy &&
      (info.folderChoice === 'path' ? this.path.trim() !== '' : this.folder !== null)
    );
  }

  /** The summary's counts per result, in the summary's order, those with none left out. */
  get summaryCounts(): { state: ExportRow['status']; n: number }[] {
    return SUMMARY_STATES.map((state) => ({
      state,
      n: this.summary?.rows.filter((row) => row.status === state).length ?? 0,
    })).filter(({ n }) => n > 0);
  }

  /** How the run ended, in a sentence for the live region; '' while none has. */
  get completion(): string {
    const summary = this.summary;
    if (!summary) return '';
    const counted = this.summaryCounts
      .map(({ state, n }) => `${n} ${EXPORT_STATE_WORDS[state].toLowerCase()}`)
      .join(', ');
    return `${summary.status === 'cancelled' ? 'Export cancelled' : 'Export finished'}: ${counted}.`;
  }

  /** Reads the app's settings (how a folder is chosen, the default folder). */
  async loadInfo(): Promise<AppInfo | null> {
    const result = await this.api.invoke('app.info', {});
    if (!result.ok) {
      this.error = { message: `Could not read the app's settings: ${result.error.message}` };
      return null;
    }
    this.info = result.value;
    return result.value;
  }

  async chooseFolder(): Promise<void> {
    this.busy = true;
    this.error = null;
    const result = await this.api.invoke('export.chooseFolder', {});
    this.busy = false;
    if (!result.ok) this.error = failure('Could not open the folder dialog', result.error);
    else if (result.value) this.folder = result.value;
  }

  /**
   * Starts the export into the chosen folder, or into `path` where the shell takes a typed path;
   * false when that folder cannot be used (the error says why).
   */
  async start(): Promise<boolean> {
    this.error = null;
    this.busy = true;
    let target = this.folder;
    if (this.info?.folderChoice === 'path') {
      const path = this.path.trim();
      const chosen = await this.api.invoke('export.useFolder', { path });
      if (!chosen.ok) {
        this.busy = false;
        this.error = failure(`That folder cannot be used (${path})`, chosen.error);
        return false;
      }
      target = chosen.value;
    }
    if (!target) {
      this.busy = false;
      return false;
    }
    await this.run(target);
    this.busy = false;
    return true;
  }

  /** Goes on with the unfinished export: its folder and options are the ones it began with. */
  resume(): void {
    const resuming = this.resuming;
    if (resuming) void this.run({ folderId: '', path: resuming.folder });
  }

  async cancel(): Promise<void> {
    if (this.cancelling) return;
    this.cancelling = true;
    const result = await this.api.invoke('export.cancel', { exportId: this.exportId });
    if (!result.ok) {
      this.cancelling = false;
      this.error = failure('Could not cancel the export', result.error);
    }
  }

  /** Exports again, into the same folder, only what the last run failed or cancelled. */
  async retry(): Promise<void> {
    const unfinished = this.unfinished;
    if (!this.lastTarget || unfinished.length === 0) return;
    this.retryIds = unfinished;
    this.summary = null;
    this.error = null;
    await this.run(this.lastTarget);
  }

  async openFolder(): Promise<void> {
    this.error = null;
    const result = await this.api.invoke('export.openFolder', { exportId: this.exportId });
    if (!result.ok) this.error = failure('Could not open the folder', result.error);
  }

  private async run(target: ExportFolder): Promise<void> {
    const id = (this.exportId = crypto.randomUUID());
    this.lastTarget = target;
    const total = this.total;
    this.overall = { filesDone: 0, filesTotal: total, bytesDone: 0, bytesTotal: 0 };
    this.files = {};
    this.seen = [];
    this.cancelling = false;
    this.phase = 'running';
    this.dialog.running = { filesDone: 0, filesTotal: total };
    const stop = this.api.on('export.progress', (event) => {
      if (event.exportId !== id) return;
      const { file, ...totals } = event;
      this.overall = totals;
      this.dialog.running = { filesDone: totals.filesDone, filesTotal: totals.filesTotal };
      if (!(file.labelId in this.files)) this.seen.push(file.labelId);
      this.files[file.labelId] = { ...file };
    });
    const what = $state.snapshot(this.exporting);
    const result =
      'resume' in what
        ? await this.api.invoke('export.resume', { exportId: id, journalId: what.resume.journalId })
        : await this.api.invoke('export.run', {
            exportId: id,
            folderId: target.folderId,
            labels: what,
            transcripts: this.transcripts,
            onExists: this.onExists,
          });
    stop();
    this.dialog.running = null;
    if (!this.dialog.visible) {
      this.dialog.endedHidden = result.ok ? result.value.status : 'stopped';
    }
    if (result.ok) {
      this.summary = result.value;
      this.phase = 'done';
      // A resumed export's folder comes back with an id, for a retry into it.
      if (result.value.folderId) {
        this.lastTarget = { folderId: result.value.folderId, path: result.value.folder };
      }
    } else {
      this.phase = 'setup';
      this.error = failure(`The export into ${target.path} stopped`, result.error);
    }
  }
}

const failure = (what: string, e: IpcError) => ({
  message: `${what}: ${e.message}`,
  detail: e.detail,
});
