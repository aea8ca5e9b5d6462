import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache, type Cache } from '../../../src/main/cache';
import type { Conversation, ConversationStatus } from '../../../src/shared/api';
import { queuePage } from '../../../src/shared/review/queue-index';
import { label, MINUTE, note, T0, useTempDir } from './helpers';

/**
 * The review queue as the cache's thread reads it (reviewQueue): records and conversations
 * judged and packed newest first, this user's marks applied, and read whole by id.
 */

const tempDir = useTempDir('cache-review');
let cache: Cache;

const NOW = T0 + 24 * 60 * MINUTE;
const SIGN_OFF = 'Earmark sign-off';

const conversation = (
  id: string,
  status: ConversationStatus,
  times: { startMs: number; endMs: number } | null,
): Conversation => ({
  conversationId: id,
  deviceId: 'room-1',
  status,
  speechMinuteCount: 3,
  transcriptState: 'PROCESSING',
  isImportable: false,
  notImportableReason: status === 'FAILED' ? 'Audio did not finish uploading.' : '',
  transcriptText: '',
  ...times,
});

const queue = async (showReviewed = false, nowMs = NOW) =>
  cache.read.reviewQueue({ showReviewed, signOffBoardName: SIGN_OFF, nowMs });
const ids = async (showReviewed = false, nowMs = NOW) =>
  queuePage(await queue(showReviewed, nowMs), {
    offset: 0,
    limit: 100,
    filter: { showReviewed },
  }).entries.map((e) => e.id);

beforeAll(async () => {
  // The worker thread, as the app reads it: the index crosses the thread boundary.
  cache = await openCache({ file: join(tempDir(), 'c.sqlite') });
  await cache.write.storeLabels(
    [1, 2, 3].map((i) => label(i, { notes: [note(`words ${i}`, T0)] })),
    T0,
  );
  for (const c of [
    conversation('failed-between', 'FAILED', {
      startMs: T0 + 20 * MINUTE,
      endMs: T0 + 25 * MINUTE,
    }),
    conversation('failed-undated', 'FAILED', null),
    conversation('active', 'ACTIVE', { startMs: NOW - MINUTE, endMs: NOW + 5 * MINUTE }),
    conversation('uploaded', 'UPLOADED', { startMs: T0, endMs: T0 + MINUTE }),
  ])
    await cache.write.storeConversation(c, T0);
});
afterAll(() => cache.close());

describe('the review queue read by the cache', () => {
  it('merges records and conversations newest first, undated last', async () => {
    // label(i) starts at T0 + 15·i minutes; the active conversation is not due yet.
    expect(await ids()).toEqual([
      label(3).id,
      label(2).id,
      'failed-between',
      label(1).id,
      'failed-undated',
    ]);
  });

  it('is good until the active conversation’s end, which puts it in the queue', async () => {
    expect((await queue()).validUntilMs).toBe(NOW + 5 * MINUTE);
    expect(await ids(false, NOW + 5 * MINUTE)).toContain('active');
  });

  it('leaves out what this user reviewed as it is, unless the reviewed ones are asked for', async () => {
    await cache.write.markReviewed({ records: [label(2).id], conversations: [] }, NOW);
    try {
      expect(await ids()).not.toContain(label(2).id);
      expect(await ids(true)).toContain(label(2).id);
    } finally {
      await cache.write.markUnreviewed({ records: [label(2).id], conversations: [] });
    }
  });

  it('reads items whole by id, whatever their state, leaving out what no queue holds', async () => {
    await cache.write.markReviewed({ records: [label(1).id], conversations: [] }, NOW);
    try {
      const facts = await cache.read.reviewFacts({
        signOffBoardName: SIGN_OFF,
        records: [label(1).id, 'no-such-record'],
        conversations: ['failed-undated', 'uploaded'],
      });
      expect(facts.map((f) => [f.kind, f.id, f.reviewed.state]).sort()).toEqual([
        ['conversation', 'failed-undated', 'never'],
        ['record', label(1).id, 'current'],
      ]);
    } finally {
      await cache.write.markUnreviewed({ records: [label(1).id], conversations: [] });
    }
  });
});
