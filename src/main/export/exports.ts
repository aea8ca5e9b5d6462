import { LABEL_LIST_MAX_LIMIT, serviceOrder } from '../../shared/api';
import {
  EXPORT_MAX_LABELS,
  type ExportFolder,
  type ExportProgressEvent,
  type ExportSummary,
  type LabelFilter,
  type UnfinishedExport,
} from '../../shared/ipc';
import type { AccountService } from '../accounts/accounts';
import type { ActiveService } from '../connection/active-service';
import type { Cache } from '../cache';
import type { ShellCapabilities } from '../base/capabilities';
import { AppError, invalidInput } from '../base/errors';
import type { ServiceClient } from '../service-client/connect';
import type { TimedTranscripts } from '../recordings/timed-transcripts';
import type { ExportSource } from './export';
import { ExportFolders } from './folders';
import { ExportJournal, type JournalKeyOf } from './journal';
import { ExportRuns } from './runs';
import type { SpeakerNames } from '../recordings/speaker-names';
import { EMPTY_OVERLAY } from '../../shared/speakers/overlay';

export interface ExportsDeps {
  /** Where export journals live (<dataDir>/exports). */
  journalFolder: string;
  /** The key an account's journal rows are sealed under (journal.ts). */
  keyOf: JournalKeyOf;
  accounts: AccountService;
  service: Pick<ActiveService, 'call' | 'read'>;
  cache(): Promise<Cache>;
  shell: Pick<ShellCapabilities, 'chooseFolder' | 'openFolder'>;
  defaultExportFolder(): string;
  progress(event: ExportProgressEvent): void;
  /** A hub record's transcript lines with their times, for the transcript .txt and the .vtt. */
  timedTranscripts: Pick<TimedTranscripts, 'of'>;
  /** The names given to a record's speakers, written into its text files. */
  speakerNames: Pick<SpeakerNames, 'overlayOf'>;
}

export interface ExportRequest {
  exportId: string;
  folderId: string;
  labels: { ids: string[] } | { filter: LabelFilter };
  transcripts: boolean;
  onExists: 'keep-both' | 'replace' | 'skip';
}

/** A filter matching more recordings than one export takes is refused before anything is written. */
function checkExportSize(matching: number): void {
  if (matching > EXPORT_MAX_LABELS) {
    throw invalidInput(
      `${matching.toLocaleString('en')} recordings match this filter; one export takes at most ${EXPORT_MAX_LABELS.toLocaleString('en')}. Narrow the filter.`,
    );
  }
}

/**
 * Exports of recordings to folders: the folders the user picked (by the shell's folder dialog
 * where it has one, else a typed path), the runs of this session, and the ones a restart or
 * crash stopped. An export belongs to the account that started it.
 */
export class Exports {
  private readonly folders = new ExportFolders();
  private readonly runs: ExportRuns;

  private readonly unsubscribe: () => void;

  constructor(private readonly deps: ExportsDeps) {
    this.runs = new ExportRuns(deps.progress, new ExportJournal(deps.journalFolder, deps.keyOf));
    // Another account active: this one's exports stop at once, resumable when it is active again
    // (they would otherwise fail recording by recording and call the export complete).
    this.unsubscribe = deps.accounts.onActiveChange(
      (activeId) => void this.runs.stopAllBut(activeId),
    );
  }

  private activeAccountId = () => this.deps.accounts.active().account.id;

  /** The shell's folder dialog; unsupported where it has none. */
  async chooseFolder(): Promise<ExportFolder | null> {
    const { chooseFolder } = this.deps.shell;
    if (!chooseFolder) {
      throw new AppError(
        'unsupported',
        'There is no folder dialog here. Type the full path of the folder instead.',
      );
    }
    const path = await chooseFolder(this.deps.defaultExportFolder());
    return path === null ? null : this.folders.register(path);
  }

  /** A typed path, only where the shell has no folder dialog. */
  useFolder(path: string): Promise<ExportFolder> {
    // With a folder dialog the renderer names no paths: only the user's own choice in the
    // system dialog registers a folder, so a compromised renderer cannot write files anywhere.
    if (this.deps.shell.chooseFolder) {
      throw new AppError('unsupported', 'Choose the export folder with the folder dialog.');
    }
    return this.folders.registerTyped(path);
  }

  run({
    exportId,
    folderId,
    labels,
    transcripts,
    onExists,
  }: ExportRequest): Promise<ExportSummary> {
    const folder = this.folders.path(folderId);
    const accountId = this.activeAccountId();
    return this.runs.run({
      exportId,
      accountId,
      folder,
      source: this.sourceOf(accountId),
      transcripts,
      onExists,
      labelIds: (signal) =>
        'ids' in labels ? Promise.resolve(labels.ids) : this.matchingIds(labels.filter, signal),
    });
  }

  unfinished(): Promise<UnfinishedExport[]> {
    return this.runs.unfinished(this.activeAccountId());
  }

  /**
   * A removed account's exports are given up: the running ones cancelled, the unfinished ones
   * discarded — journals and partial files go; the files they finished stay where the user put
   * them.
   */
  async forgetAccount(accountId: string): Promise<void> {
    await this.runs.stopAccount(accountId);
    for (const stopped of await this.runs.unfinished(accountId)) {
      await this.runs.discard(stopped.journalId);
    }
  }

  /**
   * The recordings the account's running exports read. An export reads them from the service
   * (their audio through its own partial file in the user's folder), never from the caches; a
   * cleanup still leaves them until the export has answered, so no export races one.
   */
  recordsInUse(accountId: string): string[] {
    return this.runs.recordsInUse(accountId);
  }

  async resume(exportId: string, journalId: string): Promise<ExportSummary> {
    const stopped = await this.unfinishedOfActive(journalId);
    // Main chose this folder (the user did, when the export began): checked and named again.
    const { folderId } = await this.folders.register(stopped.folder);
    const summary = await this.runs.resume(
      exportId,
      journalId,
      this.sourceOf(this.activeAccountId()),
    );
    return { ...summary, folderId };
  }

  async discard(journalId: string): Promise<void> {
    await this.unfinishedOfActive(journalId);
    await this.runs.discard(journalId);
  }

  cancel(exportId: string): void {
    this.runs.cancel(exportId);
  }

  /** Opens the folder of an export that ran in this session (never a path from the renderer). */
  async openFolder(exportId: string): Promise<void> {
    const folder = this.runs.finishedFolder(exportId);
    if (!this.deps.shell.openFolder) {
      throw new AppError(
        'unsupported',
        `Folders cannot be opened from here. The files are in ${folder}.`,
      );
    }
    await this.deps.shell.openFolder(folder);
  }

  /** Cancels the exports under way (the app is quitting), so none is left with a partial file. */
  stopAll(): Promise<void> {
    this.unsubscribe();
    return this.runs.stopAll();
  }

  /** Every recording matching a filter: the service's listing, paged through, or the cache's offline. */
  private async matchingIds(filter: LabelFilter, signal: AbortSignal): Promise<string[]> {
    const { value: ids } = await this.deps.service.read({
      fetch: async (service) => {
        // A set: pages by offset over a list that grows at its newest end meanwhile repeat a row.
        const found = new Set<string>();
        const organizationId = this.deps.accounts.active().account.organizationId;
        // Which recordings, not their order: an order only the cache has is left out.
        const { sortingProperty, ...matching } = filter;
        const pages = service.api.labels.pages(
          organizationId,
          {
            ...matching,
            ...serviceOrder(sortingProperty),
            limit: LABEL_LIST_MAX_LIMIT,
          },
          { signal },
        );
        for await (const page of pages) {
          checkExportSize(page.total ?? found.size + page.items.length);
          // Listing rows go to the cache as the sync's pages do.
          void this.deps
            .cache()
            .then((cache) =>
              cache.write.storeLabelPage({
                rows: page.items,
                seenAt: Date.now(),
                changesOnly: true,
              }),
            )
            .catch(() => undefined);
          for (const label of page.items) found.add(label.id);
        }
        return [...found];
      },
      cached: async (read) => {
        const found: string[] = [];
        for (;;) {
          const page = await read.labels({
            ...filter,
            limit: LABEL_LIST_MAX_LIMIT,
            offset: found.length,
          });
          checkExportSize(page.total);
          found.push(...page.items.map((label) => label.id));
          if (page.items.length === 0 || found.length >= page.total)
            return { value: found, fetchedAt: null };
        }
      },
    });
    if (ids.length === 0) {
      throw new AppError('not_found', 'No recordings match this filter, so nothing was exported.');
    }
    return ids;
  }

  /**
   * The audio of the account that started an export, each request through the active service
   * (so the connection status stays true). Once another account is active its requests are
   * refused, so one export never mixes two clinics' recordings.
   */
  private sourceOf(accountId: string): ExportSource {
    const labelsOf = <T>(call: (labels: ServiceClient['api']['labels']) => Promise<T>) => {
      if (this.activeAccountId() !== accountId) {
        return Promise.reject(
          new AppError('cancelled', 'Another clinic account became active during the export.'),
        );
      }
      return this.deps.service.call((service) => call(service.api.labels));
    };
    return {
      get: (labelId, callOptions) => labelsOf((labels) => labels.get(labelId, callOptions)),
      audio: (labelId, request) => labelsOf((labels) => labels.audio(labelId, request)),
      // Lines with times where they can be had; a failure leaves the transcript without times.
      transcriptLines: (label) => this.deps.timedTranscripts.of(label).catch(() => null),
      // Names where this computer has them; a cache that cannot answer leaves the labels.
      speakers: (label) => this.deps.speakerNames.overlayOf(label).catch(() => EMPTY_OVERLAY),
    };
  }

  /** Only the account that started an export goes on with it or gives it up. */
  private async unfinishedOfActive(journalId: string): Promise<UnfinishedExport> {
    const stopped = (await this.unfinished()).find((u) => u.journalId === journalId);
    if (!stopped) throw new AppError('not_found', 'There is no unfinished export with this id.');
    return stopped;
  }
}
