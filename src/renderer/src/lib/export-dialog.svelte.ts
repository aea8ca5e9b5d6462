import type { IpcError, LabelFilter, UnfinishedExport } from '../../../shared/ipc';
import { earmark } from '../bridge';

/** What the export dialog exports: recordings by id, a filter's, or the rest of an export. */
export type ExportSubject =
  { ids: string[] } | { filter: LabelFilter } | { resume: UnfinishedExport };

interface Opened {
  labels: ExportSubject;
  /** How many recordings that is. */
  count: number;
  /** Called once the dialog is done with (closed, not hidden). */
  onclose?: () => void;
}

/**
 * The export dialog: one at a time, above every screen (App.svelte mounts it, so it outlives the
 * screen that opened it). Closing it while an export runs only hides it: the export goes on, the
 * sidebar shows its progress and brings the dialog back (UI.md, "Long work").
 */
class ExportDialogState {
  opened = $state.raw<Opened | null>(null);
  visible = $state(false);
  /** The counts of the export under way; null when none runs. */
  running = $state.raw<{ filesDone: number; filesTotal: number } | null>(null);
  /** How an export that ran hidden ended, until its summary is shown. */
  endedHidden = $state<'completed' | 'cancelled' | 'stopped' | null>(null);

  /** Opens the dialog; while an export runs, shows that one instead (one export at a time). */
  open(labels: ExportSubject, count: number, onclose?: () => void): void {
    if (this.opened && this.running) {
      this.show();
      return;
    }
    this.opened?.onclose?.();
    this.opened = { labels, count, onclose };
    this.endedHidden = null;
    this.visible = true;
  }

  /** Out of sight; an export under way goes on. */
  hide(): void {
    this.visible = false;
  }

  show(): void {
    this.endedHidden = null;
    this.visible = true;
  }

  /** Done with it: the dialog goes (nothing runs any more). */
  close(): void {
    const onclose = this.opened?.onclose;
    this.opened = null;
    this.visible = false;
    this.running = null;
    this.endedHidden = null;
    onclose?.();
  }
}

export const exportDialog = new ExportDialogState();

/**
 * Exports that stopped before they finished (the app closed or crashed, a disk filled up), as
 * the Recordings screen offers them: go on with one (in the export dialog) or discard it.
 */
export class UnfinishedExports {
  list = $state.raw<UnfinishedExport[]>([]);
  discardError = $state.raw<IpcError | null>(null);

  async load(): Promise<void> {
    const result = await earmark.invoke('export.unfinished', {});
    if (result.ok) this.list = result.value;
  }

  /** Opens the export dialog on it; the list is read again when the dialog is done. */
  resume(stopped: UnfinishedExport): void {
    exportDialog.open({ resume: stopped }, stopped.total, () => void this.load());
  }

  async discard(stopped: UnfinishedExport): Promise<void> {
    this.discardError = null;
    const result = await earmark.invoke('export.discard', { journalId: stopped.journalId });
    if (!result.ok) this.discardError = result.error;
    await this.load();
  }
}
