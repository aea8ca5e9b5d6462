import type { LabelFilter, UnfinishedExport } from '../../../shared/ipc';

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
export class ExportDialogStore {
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
