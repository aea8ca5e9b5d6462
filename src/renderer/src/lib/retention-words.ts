import type { RetentionDays } from '../../../shared/retention';

/** A retention choice in words: "30 days", "1 year", "For ever". */
export function keptFor(days: RetentionDays): string {
  if (days === null) return 'For ever';
  if (days === 365) return '1 year';
  return days === 1 ? '1 day' : `${days} days`;
}
