import { join } from 'node:path';
import {
  LABEL_LIST_DEFAULT_LIMIT,
  LABEL_LIST_MAX_LIMIT,
  type Label,
  type LabelListQuery,
} from '../../shared/api';
import {
  EXPORT_MAX_LABELS,
  type LabelFilter,
  type LabelPage,
  type UnfinishedExport,
} from '../../shared/ipc';
import { isApiError } from '../api/errors';
import type { AudioSource } from '../audio/download';
import { ExportFolders } from '../export/folders';
import { ExportRuns } from '../export/runs';
import { ExportJournal } from '../export/journal';
import type { CacheReader } from '../cache';
import type { CoreContext } from '../context';
import { AppError, invalidInput } from '../errors';
import type { RpcHandlers } from '../rpc';
import type { ServiceClient } from '../service-client';
import { readSyncStatus } from '../sync';

type RecordingChannels =
  | 'labels.list'
  | 'labels.patients'
  | 'labels.assign'
  | 'export.chooseFolder'
  | 'export.useFolder'
  | 'export.run'
  | 'export.cancel'
  | 'export.openFolder'
  | 'export.unfinished'
  | 'export.resume'
  | 'export.discard';

/** A filter matching more recordings than one export takes is refused before anything is written. */
function checkExportSize(matching: number): void {
  if (matching > EXPORT_MAX_LABELS) {
    throw invalidInput(
      `${matching.toLocaleString('en')} recordings match this filter; one export takes at most ${EXPORT_MAX_LABELS.toLocaleString('en')}. Narrow the filter.`,
    );
  }
}

/** The recordings screens: the list, patient assignment, and export to a folder. */
export function recordingHandlers(context: CoreContext): Pick<RpcHandlers, RecordingChannels> {
  const { accounts, cache, emit, options, remember, syncStatus, withService, defaultExportFolder } =
    context;
  const organizationId = () => accounts.active().account.organizationId;
  const folders = new ExportFolders();
  const runs = new ExportRuns(
    (event) => emit('export.progress', event),
    new ExportJournal(join(options.dataDir, 'exports')),
  );
  // Quitting cancels the exports under way, so none is left with a partial file.
  context.onClose(() => runs.stopAll());

  /** When the cache last completed a sync: this run's, else the one it remembers (an offline start). */
  async function syncedAt(read: CacheReader): Promise<string | null> {
    const thisRun = syncStatus().lastSyncAt;
    if (thisRun) return thisRun;
    const remembered = (await readSyncStatus(read).catch(() => null))?.lastCompleteAt;
    return remembered ? new Date(remembered).toISOString() : null;
  }

  async function cachedPage(read: CacheReader, query: LabelListQuery): Promise<LabelPage> {
    const page = await read.labels(query);
    return { ...page, source: 'cache', syncedAt: await syncedAt(read) };
  }

  /** Listing rows go to the cache as the sync's pages do (their notes, when changed, are fetched later). */
  const rememberRows = (rows: readonly Label[]) =>
    remember((write) => write.storeLabelPage({ rows, seenAt: Date.now() }));

  /** Every recording matching a filter: the service's listing, paged through, or the cache's offline. */
  const matchingIds = async (filter: LabelFilter, signal: AbortSignal): Promise<string[]> => {
    const ids = await withService(
      async (service) => {
        const found: string[] = [];
        const pages = service.api.labels.pages(
          organizationId(),
          { ...filter, limit: LABEL_LIST_MAX_LIMIT },
          { signal },
        );
        for await (const page of pages) {
          checkExportSize(page.total ?? found.length + page.items.length);
          void rememberRows(page.items);
          found.push(...page.items.map((label) => label.id));
        }
        return found;
      },
      async (read) => {
        const found: string[] = [];
        for (;;) {
          const page = await read.labels({
            ...filter,
            limit: LABEL_LIST_MAX_LIMIT,
            offset: found.length,
          });
          checkExportSize(page.total);
          found.push(...page.items.map((label) => label.id));
          if (page.items.length === 0 || found.length >= page.total) return found;
        }
      },
    );
    if (ids.length === 0) {
      throw new AppError('not_found', 'No recordings match this filter, so nothing was exported.');
    }
    return ids;
  };

  /**
   * The audio of the account that started an export, each request through withService (so the
   * connection status stays true). Once another account is active its requests are refused, so
   * one export never mixes two clinics' recordings.
   */
  const exportSource = (accountId: string): AudioSource => {
    const labelsOf = <T>(call: (labels: ServiceClient['api']['labels']) => Promise<T>) => {
      if (accounts.active().account.id !== accountId) {
        return Promise.reject(
          new AppError('cancelled', 'Another clinic account became active during the export.'),
        );
      }
      return withService((service) => call(service.api.labels));
    };
    return {
      get: (labelId, callOptions) => labelsOf((labels) => labels.get(labelId, callOptions)),
      audio: (labelId, request) => labelsOf((labels) => labels.audio(labelId, request)),
    };
  };

  /**
   * An unfinished export of the active account: only the account that started an export goes on
   * with it or gives it up (its recordings, its service).
   */
  async function unfinishedOfActive(journalId: string): Promise<UnfinishedExport> {
    const stopped = (await runs.unfinished(accounts.active().account.id)).find(
      (u) => u.journalId === journalId,
    );
    if (!stopped) throw new AppError('not_found', 'There is no unfinished export with this id.');
    return stopped;
  }

  /** The service's 404 for assign, made specific: the recording is gone, or the patient is unknown. */
  async function assignNotFound(
    service: ServiceClient,
    labelId: string,
    patientId: string,
  ): Promise<AppError> {
    const labelExists = await service.api.labels.get(labelId).then(
      () => true,
      (error: unknown) => !(isApiError(error) && error.kind === 'not_found'),
    );
    return new AppError(
      'not_found',
      labelExists
        ? `The clinic service has no patient with the id "${patientId}". No patient was assigned.`
        : 'This recording is no longer on the clinic service, so no patient was assigned.',
    );
  }

  return {
    'labels.list': async ({ source, limit, offset, ...filter }) => {
      const query: LabelListQuery = {
        ...filter,
        limit: limit ?? LABEL_LIST_DEFAULT_LIMIT,
        offset: offset ?? 0,
      };
      if (source === 'cache') return cachedPage((await cache()).read, query);
      return withService(
        async (service) => {
          const page = await service.api.labels.list(organizationId(), query);
          void rememberRows(page.items);
          return {
            items: page.items,
            total: page.total ?? (query.offset ?? 0) + page.items.length,
            source: 'service' as const,
            syncedAt: null,
          };
        },
        (read) => cachedPage(read, query),
      );
    },
    'labels.patients': async ({ search, limit }) => (await cache()).read.patients(search, limit),
    'labels.assign': ({ labelId, patientId }) =>
      withService(async (service) => {
        try {
          await service.api.labels.assign(labelId, patientId);
        } catch (error) {
          if (isApiError(error) && error.kind === 'not_found')
            throw await assignNotFound(service, labelId, patientId);
          throw error;
        }
        const label = await service.api.labels.get(labelId);
        // Awaited: a list read from the cache right after shows the patient.
        await remember((write) => write.storeLabels([label], Date.now()));
        return label;
      }),
    'export.chooseFolder': async () => {
      if (!options.chooseFolder) {
        throw new AppError(
          'unsupported',
          'There is no folder dialog here. Type the full path of the folder instead.',
        );
      }
      const path = await options.chooseFolder(defaultExportFolder());
      return path === null ? null : folders.register(path);
    },
    'export.useFolder': ({ path }) => {
      // In Electron the renderer names no paths: only the user's own choice in the system
      // dialog registers a folder, so a compromised renderer cannot write files anywhere.
      if (options.shell === 'electron') {
        throw new AppError('unsupported', 'Choose the export folder with the folder dialog.');
      }
      return folders.registerTyped(path);
    },
    'export.run': ({ exportId, folderId, labels, transcripts, onExists }) => {
      const folder = folders.path(folderId);
      const accountId = accounts.active().account.id;
      const source = exportSource(accountId);
      return runs.run({
        exportId,
        accountId,
        folder,
        source,
        transcripts,
        onExists,
        labelIds: (signal) =>
          'ids' in labels ? Promise.resolve(labels.ids) : matchingIds(labels.filter, signal),
      });
    },
    'export.unfinished': () => runs.unfinished(accounts.active().account.id),
    'export.resume': async ({ exportId, journalId }) => {
      const stopped = await unfinishedOfActive(journalId);
      // Main chose this folder (the user did, when the export began): checked and named again.
      const { folderId } = await folders.register(stopped.folder);
      const source = exportSource(accounts.active().account.id);
      return { ...(await runs.resume(exportId, journalId, source)), folderId };
    },
    'export.discard': async ({ journalId }) => {
      await unfinishedOfActive(journalId);
      await runs.discard(journalId);
      return null;
    },
    'export.cancel': ({ exportId }) => {
      runs.cancel(exportId);
      return null;
    },
    'export.openFolder': async ({ exportId }) => {
      const folder = runs.finishedFolder(exportId);
      if (!options.openFolder) {
        throw new AppError(
          'unsupported',
          `Folders cannot be opened from here. The files are in ${folder}.`,
        );
      }
      await options.openFolder(folder);
      return null;
    },
  };
}
