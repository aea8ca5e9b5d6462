import {
  CONVERSATION_PAGE_DEFAULT_SIZE,
  type Conversation,
  type ConversationStatus,
  type Label,
} from '../../shared/api';
import type { ConversationPage, CreatedRange, Sourced } from '../../shared/ipc';
import { overlaps } from '../../shared/timeline/bands';
import type { ActiveService } from '../connection/active-service';
import type { Cache } from '../cache';
import { recordOf, type ConversationRanges } from './ranges';

export interface ConversationRef {
  deviceId: string;
  conversationId: string;
}

export interface ConversationQuery {
  pageSize?: number;
  pageToken?: string;
  status?: ConversationStatus;
  deviceId?: string;
  /** Only those overlapping [startMs, endMs). */
  startMs?: number;
  endMs?: number;
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
  ranges: ConversationRanges;
  /** A record by its id, through the offline policy (the recordings area's). */
  record(labelId: string): Promise<Sourced<Label>>;
}

/** Conversations: the listing and one conversation (both offline too), and the record one became. */
export class Conversations {
  constructor(private readonly deps: ConversationsDeps) {}

  async list(query: ConversationQuery): Promise<Sourced<ConversationPage>> {
    const { pageToken, startMs, endMs, ...filter } = query;
    const offset = Number(CACHE_TOKEN.exec(pageToken ?? '')?.[1] ?? 0);
    const pageSize = query.pageSize ?? CONVERSATION_PAGE_DEFAULT_SIZE;
    const answer = await this.deps.service.read(
      {
        fetch: (service) => this.deps.ranges.list(service, query),
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
    const { items, ...page } = answer.value;
    let summaries = await this.deps.ranges.summaries(items);
    if (startMs !== undefined || endMs !== undefined) {
      // The service filtered already where it could; the cache's pages, and a service without
      // the filter, are filtered here: only conversations whose range is known can match.
      const wanted = { startMs: startMs ?? 0, endMs: endMs ?? Number.MAX_SAFE_INTEGER };
      summaries = summaries.filter(
        (s) =>
          s.startMs !== null &&
          s.endMs !== null &&
          overlaps({ startMs: s.startMs, endMs: s.endMs }, wanted),
      );
    }
    return { ...answer, value: { ...page, items: summaries } };
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
   * The record (label) an UPLOADED conversation became: the one the service names (labelId, the
   * reference's extension), else the hub record of the range this app created it from (the seed
   * links them by nothing else). Null when neither is known or the record is not there yet.
   */
  async record(ref: ConversationRef): Promise<Sourced<Label | null>> {
    const known = await this.get(ref).catch(() => null);
    const labelId = known?.value.labelId;
    if (labelId) return this.deps.record(labelId);
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
      cached: async (read) => {
        const label = await recordOf(read, await read.devices(), ref, range);
        return label && { value: label, fetchedAt: await read.labelSeenAt(label.id) };
      },
    });
  }
}
