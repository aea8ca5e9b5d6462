import type { EarmarkApi, IpcError, UnfinishedExport } from '../../../shared/ipc';
import type { ExportDialogStore } from './export-dialog.svelte';

/**
 * Exports that stopped before they finished (the app closed or crashed, a disk filled up), as
 * the Recordings screen offers them: go on with one (in the export dialog) or discard it.
 */
export class UnfinishedExportsStore {
  list = $state.raw<UnfinishedExport[]>([]);
  discardError = $state.raw<IpcError | null>(null);

  constructor(
    private readonly api: EarmarkApi,
    private readonly dialog: ExportDialogStore,
  ) {}

  async load(): Promise<void> {
    const result = await this.api.invoke('export.unfinished', {});
    if (result.ok) this.list = result.value;
  }

  /** Opens the export dialog on it; the list is read again when the dialog is done. */
  resume(stopped: UnfinishedExport): void {
    this.dialog.open({ resume: stopped }, stopped.total, () => void this.load());
  }

  async discard(stopped: UnfinishedExport): Promise<void> {
    this.discardError = null;
    const result = await this.api.invoke('export.discard', { journalId: stopped.journalId });
    if (!result.ok) this.discardError = result.error;
    await this.load();
  }
}
