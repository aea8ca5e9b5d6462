import {
  CONVERSATION_PAGE_DEFAULT_SIZE,
  type Conversation,
  type ConversationList,
  type ConversationStatus,
  type Label,
} from '../../shared/api';
import type { CreatedRange, Sourced } from '../../shared/ipc';
import type { ActiveService } from '../active-service';
import type { Cache, CacheReader } from '../cache';

export interface ConversationRef {
  deviceId: string;
  conversationId: string;
}

export interface ConversationQuery {
  pageSize?: number;
  pageToken?: string;
  status?: ConversationStatus;
  deviceId?: string;
}

/**
 * Page tokens of a listing answered from the cache: the offset of the next cached page. A
 * listing that began offline goes on from the cache (the service's own tokens are opaque); a new
 * listing asks the service again.
 */
const CACHE_TOKEN = /^cache:(\d{1,9})$/;
const cacheToken = (offset: number) => `cache:${offset}`;

export interface ConversationsDeps {
  service: Pick<ActiveService, 'read'>;
  cache(): Promise<Cache>;
  organizationId(): string;
}

/** Conversations: the listing and one conversation (both offline too), and the record one became. */
export class Conversations {
  constructor(private readonly deps: ConversationsDeps) {}

  list(query: ConversationQuery): Promise<Sourced<ConversationList>> {
    const { pageToken, ...filter } = query;
    const offset = Number(CACHE_TOKEN.exec(pageToken ?? '')?.[1] ?? 0);
    const pageSize = query.pageSize ?? CONVERSATION_PAGE_DEFAULT_SIZE;
    return this.deps.service.read(
      {
        fetch: (service) => service.api.conversations.list(query),
        cached: async (read) => {
          const { items, total, fetchedAt } = await read.conversations({
            status: filter.status,
            deviceId: filter.deviceId,
            limit: pageSize,
            offset,
          });
          if (items.length === 0 && offset === 0) return null;
          const next = offset + items.length;
          const hasMore = next < total;
          return {
            value: { items, hasMore, ...(hasMore ? { nextPageToken: cacheToken(next) } : {}) },
            fetchedAt,
          };
        },
      },
      pageToken !== undefined && CACHE_TOKEN.test(pageToken) ? 'cache' : 'service',
    );
  }

  get({ deviceId, conversationId }: ConversationRef): Promise<Sourced<Conversation>> {
    return this.deps.service.read({
      fetch: (service) => service.api.conversations.get(deviceId, conversationId),
      keep: (write, conversation, at) => write.storeConversation(conversation, at),
      cached: async (read) => {
        const seen = await read.conversationSeen(deviceId, conversationId);
        return seen && { value: seen.conversation, fetchedAt: seen.seenAt };
      },
    });
  }

  /** The range this app created the conversation from (null when created elsewhere). */
  async createdRange({ deviceId, conversationId }: ConversationRef): Promise<CreatedRange | null> {
    const range = await (await this.deps.cache()).read.createdRange(conversationId);
    return range?.deviceId === deviceId ? range : null;
  }

  /**
   * The record (label) an UPLOADED conversation became. The seed links them by nothing, so it is
   * found by the range this app created it from: a hub record (HubMic, HubBatch) of that device
   * starting in that very millisecond and ending when the range does. Null when this app did not
   * create the conversation or the record is not there yet.
   */
  async record(ref: ConversationRef): Promise<Sourced<Label | null>> {
    const range = await this.createdRange(ref);
    if (!range) return { value: null, source: 'cache', fetchedAt: null };
    const serialOf = (devices: readonly { value: string; serial: string }[]) =>
      devices.find((d) => d.value === ref.deviceId)?.serial;
    const organizationId = this.deps.organizationId();
    return this.deps.service.read({
      fetch: async (service) => {
        const serial = serialOf(await service.api.devices.list({ organizationId }));
        const { items } = await service.api.labels.list(organizationId, {
          types: ['HubMic', 'HubBatch'],
          fromTime: new Date(range.startMs).toISOString(),
          toTime: new Date(range.startMs + 1).toISOString(),
          limit: 20,
        });
        const match = items.find(
          (label) =>
            Date.parse(label.toTime) === range.endMs &&
            (serial === undefined || label.deviceSerial === serial),
        );
        return match ? service.api.labels.get(match.id) : null;
      },
      keep: (write, label, at) => (label ? write.storeLabels([label], at) : Promise.resolve()),
      cached: (read) => cachedRecord(read, range, serialOf),
    });
  }
}

async function cachedRecord(
  read: CacheReader,
  range: CreatedRange,
  serialOf: (devices: readonly { value: string; serial: string }[]) => string | undefined,
) {
  const serial = serialOf(await read.devices());
  const label = await read.hubRecordFor({
    startMs: range.startMs,
    endMs: range.endMs,
    ...(serial === undefined ? {} : { deviceSerial: serial }),
  });
  return label && { value: label, fetchedAt: await read.labelSeenAt(label.id) };
}
