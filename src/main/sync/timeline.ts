import { TIMELINE_MAX_WINDOW_MS, type TimelineMinute } from '../../shared/api';
import { fetchWindows, type TimeRange } from '../../shared/timeline';
import type { CallOptions } from '../service-client/http';
import type { SyncDeps } from './types';

/**
 * Timelines are cached as they are fetched: a handler asks for a device's minutes through this,
 * which fetches them in windows of at most 6 hours, stores each window (the cache then knows the
 * range was fetched, so an absent minute means "no data") and answers the minutes.
 */
export async function fetchTimeline(
  deps: Pick<SyncDeps, 'api' | 'cache'>,
  deviceId: string,
  range: TimeRange,
  options: CallOptions & { now?: () => number } = {},
): Promise<TimelineMinute[]> {
  const { now = Date.now, ...call } = options;
  const windows = fetchWindows(range, TIMELINE_MAX_WINDOW_MS);
  const parts = await Promise.all(
    windows.map(async (window) => {
      const { minutes } = await deps.api.conversations.timeline(deviceId, window, call);
      await deps.cache.write.storeTimeline({ deviceId, ...window, minutes, fetchedAt: now() });
      return minutes;
    }),
  );
  return parts.flat();
}
