import { formatDuration } from '../../../shared/timeline';
import { CLINIC_TIME_ZONE } from './clinic-time';

/** How the Recordings screen writes a recording's times: clinic-local, in the user's locale. */

const dayFormat = new Intl.DateTimeFormat(undefined, {
  day: '2-digit',
  month: 'short',
  year: 'numeric',
  timeZone: CLINIC_TIME_ZONE,
});
const clockFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  timeZone: CLINIC_TIME_ZONE,
});

/** "12 Mar 2026" (two-digit days, so a column of them lines up). */
export const recordingDay = (iso: string): string => dayFormat.format(Date.parse(iso));
/** "10:42" (or the locale's "10:42 AM"). */
export const recordingClock = (iso: string): string => clockFormat.format(Date.parse(iso));

/** "45 s" under a minute, else UI.md's "1 h 05 min"; "—" for times that do not parse. */
export function recordingDuration(fromIso: string, toIso: string): string {
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (!Number.isFinite(ms)) return '—';
  return ms < 60_000 ? `${Math.max(0, Math.round(ms / 1000))} s` : formatDuration(ms);
}
