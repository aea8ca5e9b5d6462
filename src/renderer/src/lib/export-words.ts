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
