import type { Conversation, ConversationListQuery, Device, Label } from '../../shared/api';
import { CONVERSATION_MAX_RANGE_MS } from '../../shared/api/values';
import type { ConversationSummary, CreatedRange, Sourced } from '../../shared/ipc';
import { conversationBands, type ConversationBand } from '../../shared/timeline/bands';
import { isApiError } from '../service-client/errors';
import type { ActiveService } from '../connection/active-service';
import type { Cache, CacheReader } from '../cache';
import type { ServiceClient } from '../service-client/connect';

/**
 * Where each conversation lies in time. The seed's conversation carries no times; the reference
 * service (and any with the same extension) sends `startMs`/`endMs`, its list filters by them,
 * and it names the label a conversation became. Without the extension what is known is the
 * ranges this app created and, for conversations that were processed, their hub records.
 */

export interface TimeRange {
  deviceId: string;
  startMs: number;
  endMs: number;
}

const HUB_TYPES = ['HubMic', 'HubBatch'] as const;
/** Conversations or records listed for one view at most (a clinic day has a few dozen). */
const MAX_LISTED = 1000;

/** What the bands of a view are made of. */
interface Found {
  devices: Device[];
  /** The device's conversations in the range, with their times; empty when the service sends none. */
  timed: Conversation[];
  /** The device's hub records in the range (when the service sends no times). */
  records: Label[];
}

export interface ConversationRangesDeps {
  service: Pick<ActiveService, 'read'>;
  cache(): Promise<Cache>;
  organizationId(): string;
}

export class ConversationRanges {
  /** Whether the active client's service sends conversation times, once learned. */
  private support: { client: ServiceClient; timed: boolean } | undefined;

  constructor(private readonly deps: ConversationRangesDeps) {}

  /** Every known conversation of the device overlapping the range, as bands; offline too. */
  async bands(range: TimeRange): Promise<Sourced<ConversationBand[]>> {
    const organizationId = this.deps.organizationId();
    const answer = await this.deps.service.read<Found>({
      fetch: async (service) => {
        const devices = await service.api.devices.list({ organizationId });
        const timed = (await this.timed(service)) ? await this.listWithin(service, range) : null;
        const records =
          timed !== null
            ? []
            : (
                await service.api.labels.list(organizationId, {
                  types: [...HUB_TYPES],
                  // The list filters on a record's start: one starting up to 90 minutes
                  // before the range may still reach into it.
                  fromTime: new Date(range.startMs - CONVERSATION_MAX_RANGE_MS).toISOString(),
                  toTime: new Date(range.endMs).toISOString(),
                  limit: MAX_LISTED,
                })
              ).items;
        return { devices, timed: timed ?? [], records };
      },
      keep: async (write, found, at) => {
        for (const conversation of found.timed) await write.storeConversation(conversation, at);
        if (found.records.length > 0) await write.storeLabels(found.records, at);
      },
      cached: async (read) => {
        const { devices, fetchedAt } = await read.devicesFetched();
        const serial = serialOf(devices, range.deviceId);
        return {
          value: {
            devices,
            timed: await read.conversationsWithin(range.deviceId, range.startMs, range.endMs),
            records:
              serial === undefined
                ? []
                : await read.hubRecordsWithin({ deviceSerial: serial, ...range }),
          },
          fetchedAt,
        };
      },
    });
    return { ...answer, value: await this.toBands(range, answer.value) };
  }

  /**
   * The list items as the screens show them: with their range (the service's, else the one this
   * app created) and the record each became (the service's labelId, else the hub record of that
   * range) with its patient, as far as the cache knows it.
   */
  async summaries(items: readonly Conversation[]): Promise<ConversationSummary[]> {
    const { read } = await this.deps.cache();
    const created = new Map<string, CreatedRange>();
    for (const item of items) {
      if (item.startMs !== undefined) continue;
      const range = await read.createdRange(item.conversationId);
      if (range) created.set(item.conversationId, range);
    }
    const devices = created.size > 0 ? await read.devices() : [];
    const labelIds = new Map<string, string | null>();
    for (const item of items) {
      const range = created.get(item.conversationId);
      if (item.labelId !== undefined) {
        labelIds.set(item.conversationId, item.labelId);
      } else if (range && item.status === 'UPLOADED') {
        labelIds.set(item.conversationId, (await recordOf(read, devices, item, range))?.id ?? null);
      }
    }
    const patients = await read.patientsOf(
      [...labelIds.values()].filter((id): id is string => id !== null),
    );
    return items.map((conversation) => {
      const range = created.get(conversation.conversationId);
      const labelId = labelIds.get(conversation.conversationId) ?? null;
      return {
        conversation,
        startMs: conversation.startMs ?? range?.startMs ?? null,
        endMs: conversation.endMs ?? range?.endMs ?? null,
        labelId,
        patient: labelId === null ? null : (patients[labelId] ?? null),
        createdHere: range !== undefined,
      };
    });
  }

  /**
   * Whether the service sends conversation times, learned from its first answer that holds a
   * conversation and kept for the client: the reference service does; a service with exactly the
   * seed's fields does not (and refuses the time filter, or ignores it).
   */
  async timed(service: ServiceClient): Promise<boolean> {
    if (this.support?.client === service) return this.support.timed;
    const { items } = await service.api.conversations.list({ pageSize: 1 });
    if (items.length === 0) return false;
    this.support = { client: service, timed: items[0]!.startMs !== undefined };
    return this.support.timed;
  }

  /**
   * The service's listing with a time filter, where it has one; without, the filter is applied
   * to the page it answers (only the conversations whose range is known can match).
   */
  async list(service: ServiceClient, query: ConversationListQuery) {
    const filtered = query.startMs !== undefined || query.endMs !== undefined;
    if (!filtered || (await this.timed(service))) {
      return service.api.conversations.list(query).catch((error: unknown) => {
        // A service that refuses the filter has none, whatever its first answer suggested.
        if (filtered && isApiError(error) && error.kind === 'bad_request') {
          this.support = { client: service, timed: false };
        }
        throw error;
      });
    }
    const { startMs: _startMs, endMs: _endMs, ...unfiltered } = query;
    return service.api.conversations.list(unfiltered);
  }

  /** The device's conversations overlapping the range, every page. */
  private async listWithin(service: ServiceClient, range: TimeRange): Promise<Conversation[]> {
    const items: Conversation[] = [];
    let pageToken: string | undefined;
    do {
      const page = await service.api.conversations.list({
        deviceId: range.deviceId,
        startMs: range.startMs,
        endMs: range.endMs,
        pageSize: 100,
        ...(pageToken ? { pageToken } : {}),
      });
      items.push(...page.items);
      pageToken = page.hasMore ? page.nextPageToken : undefined;
    } while (pageToken && items.length < MAX_LISTED);
    return items;
  }

  /** The bands of what was found, with this app's ranges and the statuses the cache holds. */
  private async toBands(range: TimeRange, found: Found): Promise<ConversationBand[]> {
    const { read } = await this.deps.cache();
    const created = await read.createdRangesWithin(range.deviceId, range.startMs, range.endMs);
    // Without the service's times, the statuses of the conversations this app created.
    const statuses =
      found.timed.length > 0
        ? []
        : (
            await Promise.all(created.map((r) => read.conversation(r.deviceId, r.conversationId)))
          ).filter((c): c is Conversation => c !== null);
    return conversationBands({
      view: range,
      deviceId: range.deviceId,
      deviceSerial: serialOf(found.devices, range.deviceId) ?? '',
      conversations: [...found.timed, ...statuses],
      createdRanges: created,
      records: found.timed.length > 0 ? [] : found.records,
    });
  }
}

const serialOf = (devices: readonly Device[], deviceId: string) =>
  devices.find((device) => device.value === deviceId)?.serial;

/** The hub record of the range a conversation was created from (cached, by its device's serial). */
export function recordOf(
  read: CacheReader,
  devices: readonly Device[],
  conversation: Pick<Conversation, 'deviceId'>,
  range: { startMs: number; endMs: number },
) {
  const serial = serialOf(devices, conversation.deviceId);
  return read.hubRecordFor({ ...range, ...(serial === undefined ? {} : { deviceSerial: serial }) });
}
