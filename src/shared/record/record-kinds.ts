import type { RecordType } from '../api/values';

/**
 * Seed §2.3 record types in plain words, for the screens and what is handed on (the practice
 * system's text); the service's type name stays beside them in detail views, for support.
 */
export const RECORD_TYPE_WORDS: Record<RecordType, string> = {
  ClinicConversation: 'Clinic recording',
  HubBatch: 'Hub button recording',
  HubMic: 'Ambient hub recording',
  DictationAudio: 'Dictation',
  PhoneCallAudio: 'Phone call',
  ButtonRecording: 'Button recording',
  AudioButtonRecording: 'Audio button recording',
  AggregateLabel: 'Combined medical record',
};

/** A record type in plain words; "Recording" for a type this app does not know. */
export const recordTypeLabel = (type: string): string =>
  RECORD_TYPE_WORDS[type as RecordType] ?? 'Recording';
