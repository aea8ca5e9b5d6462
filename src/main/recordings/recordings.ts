import {
  isCacheOnlyOrder,
  LABEL_LIST_DEFAULT_LIMIT,
  serviceOrder,
  type Label,
} from '../../shared/api';
import type { LabelPage, ReadSource, Sourced } from '../../shared/ipc';
import type { ActiveService } from '../connection/active-service';
import { isApiError } from '../service-client/errors';
import type { Cache, CacheReader } from '../cache';
import type { CachedLabelQuery } from '../cache/labels';
import { AppError } from '../base/errors';
import type { ServiceClient } from '../service-client/connect';
import { readSyncStatus } from '../sync';

export interface RecordingsDeps {
  service: Pick<ActiveService, 'call' | 'read'>;
  cache(): Promise<Cache>;
  organizationId(): string;
  /** When this run's sync last completed (ISO 8601), if it has. */
  lastSyncAt(): string | null;
}

export type LabelPageQuery = CachedLabelQuery & { limit?: number; offset?: number };

/** Recordings (labels): one, a page of the list (both offline too), patients, assignment. */
export class Recordings {
  constructor(private readonly deps: RecordingsDeps) {}

  get(labelId: string): Promise<Sourced<Label>> {
    return this.deps.service.read({
      fetch: (service) => service.api.labels.get(labelId),
      keep: (write, label, at) => write.storeLabels([label], at),
      cached: async (read) => {
        const label = await read.label(labelId);
        return label && { value: label, fetchedAt: await read.labelSeenAt(labelId) };
      },
    });
  }

  /**
   * A page of the list. From the service, `total` is its X-Total-Count, and the rows go to the
   * cache as the sync's listing pages do (a changed row gets its notes fetched by the next sync;
   * cached notes are never dropped). From the cache (offline, or `from: 'cache'` for a first
   * paint) the same query on the cached rows, fetched as of the last completed sync. An order
   * the service cannot list in (Duration) comes from the cache, online too.
   */
  list(query: LabelPageQuery, from: ReadSource = 'service'): Promise<Sourced<LabelPage>> {
    const page: CachedLabelQuery = {
      ...query,
      limit: query.limit ?? LABEL_LIST_DEFAULT_LIMIT,
      offset: query.offset ?? 0,
    };
    const { sortingProperty, ...serviceQuery } = page;
    return this.deps.service.read(
      {
        fetch: async (service) => {
          const { items, total } = await service.api.labels.list(this.deps.organizationId(), {
            ...serviceQuery,
            ...serviceOrder(sortingProperty),
          });
          return { items, total: total ?? (page.offset ?? 0) + items.length };
        },
        keep: (write, { items }, seenAt) =>
          write.storeLabelPage({ rows: items, seenAt, changesOnly: true }),
        cached: async (read) => ({
          value: await read.labels(page),
          fetchedAt: await this.syncedAt(read),
        }),
      },
      isCacheOnlyOrder(sortingProperty) ? 'cache' : from,
    );
  }

  /** When the cache last completed a sync: this run's, else the one it remembers (an offline start). */
  private async syncedAt(read: CacheReader): Promise<number | null> {
    const thisRun = this.deps.lastSyncAt();
    if (thisRun) return Date.parse(thisRun);
    return (await readSyncStatus(read).catch(() => null))?.lastCompleteAt ?? null;
  }

  /** Patients of cached recordings whose name contains `search`, by name (the seed has no list). */
  async patients(search: string, limit?: number) {
    return (await this.deps.cache()).read.patients(search, limit);
  }

  /** POST assign, then the recording as the service now holds it, kept before the answer. */
  assign(labelId: string, patientId: string): Promise<Label> {
    return this.deps.service.call(async (service) => {
      try {
        await service.api.labels.assign(labelId, patientId);
      } catch (error) {
        if (isApiError(error) && error.kind === 'not_found')
          throw await assignNotFound(service, labelId, patientId);
        throw error;
      }
      const label = await service.api.labels.get(labelId);
      // Awaited: a list read from the cache right after shows the patient.
      await (await this.deps.cache()).write.storeLabels([label], Date.now()).catch(() => undefined);
      return label;
    });
  }
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
