import type { ExportFileState, ExportRow } from '../../../shared/ipc';

/** An export file's state in the interface's words (the manifest keeps the service-side codes). */
export const EXPORT_STATE_WORDS: Record<ExportFileState, string> = {
  waiting: 'Waiting',
  downloading: 'Downloading',
  exported: 'Exported',
  no_audio: 'No audio',
  skipped: 'Skipped (file exists)',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The order the summary counts them in. */
export const SUMMARY_STATES: readonly ExportRow['status'][] = [
  'exported',
  'no_audio',
  'skipped',
  'failed',
  'cancelled',
];

const units = ['B', 'kB', 'MB', 'GB'] as const;
const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** A size in decimal units, as file managers show them: "86.4 MB". */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${number.format(value)} ${units[unit]}`;
}
