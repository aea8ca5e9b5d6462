import type { ReviewFacts } from '../../src/shared/review/queue';

/**
 * What the cache knows of a queue item, for tests of the queue's rules and screens: a record
 * of Consult Room 1, never reviewed, with a patient; `extra` says what the test is about.
 */
export const recordFacts = (extra: Partial<ReviewFacts> = {}): ReviewFacts => ({
  kind: 'record',
  id: 'rec-1',
  deviceId: null,
  source: { key: 'HUB-1', name: 'Consult Room 1' },
  startMs: Date.parse('2026-11-23T14:00:00Z'),
  endMs: Date.parse('2026-11-23T14:10:00Z'),
  recordType: 'HubMic',
  patient: 'Pepper',
  reviewed: { state: 'never' },
  transcriptPending: false,
  conversationStatus: null,
  statusReason: '',
  signedOff: null,
  preview: '',
  ...extra,
});

/** A hub's conversation that failed, in the same room. */
export const conversationFacts = (extra: Partial<ReviewFacts> = {}): ReviewFacts =>
  recordFacts({
    kind: 'conversation',
    id: 'conv-1',
    deviceId: 'hub-1',
    recordType: null,
    patient: null,
    conversationStatus: 'FAILED',
    statusReason: 'Audio of 3 minutes did not finish uploading from the device.',
    ...extra,
  });
