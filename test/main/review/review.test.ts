import Database from 'better-sqlite3-multiple-ciphers';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MINUTE_MS, SOAP_NOTE_TYPE, type TaskBoard } from '../../../src/shared/api';
import {
  SIGN_OFF_BOARD_NAME,
  type IpcEvents,
  type ReviewItem,
  type ReviewNotification,
} from '../../../src/shared/ipc';
import { openCache } from '../../../src/main/cache';
import type { Core } from '../../../src/main/core';
import { Review } from '../../../src/main/review/review';
import { STAFF } from '../../../src/service/demo/dialogue';
import {
  baseMinute,
  DEMO_DEVICES,
  hubMinute,
  startService,
  type RunningService,
} from '../../service/harness';
import { conversation, label, note, T0 } from '../cache/helpers';
import { ipcCalls } from '../../support/ipc-calls';
import { testCore } from '../../support/core';

/**
 * Review through the core's channels, on a real reference service and real caches: the queue
 * and its reasons, marks that survive a restart and come back as "updated", suggestions, clinic
 * sign-off between two desktops of one clinic, and the notification of a conversation created
 * here.
 */

const DAY_MS = 24 * 60 * MINUTE_MS;
const BASE = baseMinute(1);

let svc: RunningService;
let folder: string;
let admin: Desktop;
let member: Desktop;
let hubRecordId: string;
let assignedId: string;

interface Desktop {
  dataDir: string;
  core: Core;
  apiKey: string;
  events: { [E in keyof IpcEvents]?: IpcEvents[E][] };
  call: ReturnType<typeof ipcCalls>['call'];
  refused: ReturnType<typeof ipcCalls>['refused'];
}

/** Starts (or restarts) a desktop's core over its data folder, listening to Review's events. */
function start(desktop: Desktop): void {
  desktop.core = testCore({ dataDir: desktop.dataDir });
  for (const event of ['review.changed', 'review.notification'] as const)
    desktop.core.on(event, (payload) =>
      (desktop.events[event] ??= [] as never[]).push(payload as never),
    );
}

async function openDesktop(dataDir: string, apiKey: string): Promise<Desktop> {
  const desktop = { dataDir, apiKey, events: {} } as Desktop;
  start(desktop);
  Object.assign(
    desktop,
    ipcCalls(() => desktop.core),
  );
  await desktop.call('accounts.add', { baseUrl: svc.baseUrl, apiKey, sessionOnly: true });
  return desktop;
}

async function synced(desktop: Desktop): Promise<void> {
  const settled = async () => (await desktop.call('sync.status', {})).state !== 'running';
  // A run already under way (the one the service's first answer starts) may have listed before
  // what the test just changed: it ends first, and a run of this call's own is waited for.
  await vi.waitUntil(settled, { timeout: 30_000, interval: 50 });
  const before = (await desktop.call('sync.status', {})).lastSyncAt;
  await desktop.call('sync.run', {});
  await vi.waitUntil(
    async () => {
      const status = await desktop.call('sync.status', {});
      return status.state === 'idle' && status.lastSyncAt !== before;
    },
    { timeout: 30_000, interval: 50 },
  );
}

const queue = async (desktop: Desktop) =>
  (await desktop.call('review.list', {})).items.map((item) => [
    item.id,
    item.reasons.map((r) => r.kind),
  ]);

/** A key of another user of the clinic: a member, on another computer. */
function memberKey(): string {
  const { identity } = svc.service;
  const user = identity.userByEmail(STAFF.find((s) => s.role === 'member')!.email)!;
  return identity.createApiKey({
    userId: user.id,
    organizationId: svc.credentials.primary.organizationId,
    name: 'Consult room PC',
  }).key;
}

const boards = async (): Promise<TaskBoard[]> =>
  ((await (await svc.call('/task-boards', { key: admin.apiKey })).json()) as { items: TaskBoard[] })
    .items;

beforeAll(async () => {
  svc = await startService({ processingMs: 300 });
  const { service, credentials } = svc;
  const org = credentials.primary.organizationId;
  const pepper = service.labels.createPatient(org, 'Pepper', 'cat');
  const at = (ms: number) => ({ createdMs: ms, timeMs: ms });
  assignedId = service.labels.create({
    organizationId: org,
    type: 'ClinicConversation',
    fromMs: BASE - DAY_MS / 2,
    toMs: BASE - DAY_MS / 2 + 10 * MINUTE_MS,
    patientId: pepper,
    friendlyName: 'Exam Room iPad',
    deviceSerial: 'IPAD-44F1',
    notes: [
      { type: 'Transcript', content: 'Vet: Pepper is eating again.', ...at(BASE - DAY_MS / 4) },
    ],
  });
  hubRecordId = service.labels.create({
    organizationId: org,
    type: 'HubMic',
    fromMs: BASE - 3 * 60 * MINUTE_MS,
    toMs: BASE - 2 * 60 * MINUTE_MS,
    friendlyName: 'Consult Room 1',
    deviceSerial: 'HUB-7Q4K-0193',
    notes: [
      {
        type: 'Transcript',
        content: 'Speaker 1: What has been happening with peper?\nSpeaker 2: She is off her food.',
        ...at(BASE - 60 * MINUTE_MS),
      },
    ],
  });
  service.hub.insertMinutes(
    DEMO_DEVICES[0].id,
    Array.from({ length: 30 }, (_, i) => hubMinute(BASE, i, 20_000)),
  );
  folder = mkdtempSync(join(tmpdir(), 'earmark-review-'));
  admin = await openDesktop(join(folder, 'admin'), credentials.primary.apiKey);
  member = await openDesktop(join(folder, 'member'), memberKey());
  await Promise.all([synced(admin), synced(member)]);
}, 60_000);

afterAll(async () => {
  await admin?.core.close();
  await member?.core.close();
  await svc?.dispose();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('the review queue', () => {
  it('lists what is new, newest first, saying why, and counts it', async () => {
    expect(await queue(admin)).toEqual([
      [hubRecordId, ['new', 'no-patient']],
      [assignedId, ['new']],
    ]);
    expect(await admin.call('review.count', {})).toBe(2);
    expect(admin.events['review.changed']?.at(-1)).toEqual({ count: 2 });
  });

  it('marks and unmarks, says the new count, and keeps every mark across a restart', async () => {
    expect(
      await admin.call('review.mark', { records: [assignedId], conversations: [], reviewed: true }),
    ).toBe(1);
    expect(admin.events['review.changed']?.at(-1)).toEqual({ count: 1 });
    expect(await queue(admin)).toEqual([[hubRecordId, ['new', 'no-patient']]]);
    const all = await admin.call('review.list', { filter: { showReviewed: true } });
    expect(all.items.find((i: ReviewItem) => i.id === assignedId)?.reviewed.state).toBe('current');

    await admin.core.close();
    start(admin);
    // The session's key is gone after a restart; added again, the account finds its marks.
    await admin.call('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: admin.apiKey,
      sessionOnly: true,
    });
    expect(await queue(admin)).toEqual([[hubRecordId, ['new', 'no-patient']]]);

    await admin.call('review.mark', { records: [assignedId], conversations: [], reviewed: false });
    expect(await admin.call('review.count', {})).toBe(2);
    await admin.call('review.mark', { records: [assignedId], conversations: [], reviewed: true });
  });

  it('brings a reviewed record back as updated when the service regenerates its note', async () => {
    svc.service.regenerateNote(assignedId, SOAP_NOTE_TYPE, 'S: Pepper is eating again.');
    await synced(admin);
    const item = (await admin.call('review.list', {})).items.find((i) => i.id === assignedId);
    expect(item?.reasons).toEqual([{ kind: 'updated', transcript: false, note: true }]);
    await admin.call('review.mark', { records: [assignedId], conversations: [], reviewed: true });
  });

  it('suggests the known patient a transcript names, with the words that matched', async () => {
    const match = await admin.call('review.suggestions', { labelId: hubRecordId });
    expect(match.first).toMatchObject({ name: 'Pepper', words: ['peper'], decidedBy: 'name' });
    expect(await admin.call('review.suggestions', { labelId: assignedId })).toEqual({
      suggestions: [],
      first: null,
    });
  });
});

describe('clinic sign-off', () => {
  it('is off until an owner or admin turns it on, and writes nothing while off', async () => {
    expect((await admin.call('review.settings', {})).settings.signOff).toBe(false);
    const refused = await admin.refused('review.signOff', { labelId: hubRecordId });
    expect(refused.message).toContain('Sign-off is off');
    const byMember = await member.refused('review.saveSettings', { signOff: true });
    expect(byMember).toMatchObject({ kind: 'scope_missing' });
    expect(byMember.message).toContain('Only an owner or admin');
    expect(await boards()).toEqual([]);
  });

  it('writes one task on a board it creates, and another desktop shows it after its sync', async () => {
    const view = await admin.call('review.saveSettings', { signOff: true });
    expect(view.settings.signOff).toBe(true);
    expect(view.signOffWrites).toContain('Earmark sign-off');
    const signed = await admin.call('review.signOff', { labelId: hubRecordId });
    expect(signed.by).toBe('Owen Gallagher');
    // Signing again writes nothing more.
    expect(await admin.call('review.signOff', { labelId: hubRecordId })).toEqual(signed);
    const [board, ...others] = await boards();
    expect(others).toEqual([]);
    expect(board!.name).toBe(SIGN_OFF_BOARD_NAME);
    const tasks = (await (
      await svc.call(`/task-boards/${board!.id}/tasks`, { key: admin.apiKey })
    ).json()) as {
      items: { groupKey: string; linkUrl: string; assignee: string; completedAt: string }[];
    };
    expect(tasks.items).toEqual([
      expect.objectContaining({
        groupKey: hubRecordId,
        linkUrl: `earmark://record/${hubRecordId}`,
        assignee: 'Owen Gallagher',
        completedAt: signed.at,
      }),
    ]);
    expect(await queue(admin)).toEqual([]);

    expect((await queue(member)).map(([id]) => id)).toContain(hubRecordId);
    await synced(member);
    await vi.waitUntil(async () => !(await queue(member)).some(([id]) => id === hubRecordId));
    expect(await member.call('review.record', { labelId: hubRecordId })).toMatchObject({
      signedOff: { by: 'Owen Gallagher', at: signed.at },
    });
  });

  it('turned off again, it refuses and leaves the boards as they were', async () => {
    await admin.call('review.saveSettings', { signOff: false });
    const before = await boards();
    await admin.refused('review.signOff', { labelId: assignedId });
    expect(await boards()).toEqual(before);
  });
});

describe('told when a conversation created here is ready', () => {
  const created = async (desktop: Desktop, offsetMinutes: number) => {
    const range = {
      deviceId: DEMO_DEVICES[0].id,
      startMs: BASE + offsetMinutes * MINUTE_MS,
      endMs: BASE + (offsetMinutes + 5) * MINUTE_MS,
    };
    const { conversation } = await desktop.call('hub.create', range);
    const ref = { deviceId: range.deviceId, conversationId: conversation!.conversationId };
    await desktop.call('hub.complete', ref);
    await desktop.call('conversations.follow', ref);
    return ref;
  };

  it('notifies once with the record to open', async () => {
    const ref = await created(admin, 0);
    await vi.waitUntil(() => (admin.events['review.notification'] ?? []).length > 0, {
      timeout: 20_000,
    });
    const [told] = admin.events['review.notification'] as ReviewNotification[];
    expect(told).toMatchObject({
      outcome: 'processed',
      conversationId: ref.conversationId,
      title: 'Conversation processed',
    });
    const record = await admin.call('conversations.record', ref);
    expect(told!.labelId).toBe(record.value!.id);
  });

  it('says nothing when notifications are off', async () => {
    await admin.call('review.saveSettings', { notifications: false });
    const before = (admin.events['review.notification'] ?? []).length;
    const ref = await created(admin, 10);
    await vi.waitUntil(
      async () => (await admin.call('conversations.get', ref)).value.status === 'UPLOADED',
      { timeout: 20_000 },
    );
    await vi.waitUntil(async () => (await admin.call('conversations.record', ref)).value !== null, {
      timeout: 20_000,
    });
    expect((admin.events['review.notification'] ?? []).length).toBe(before);
  });
});

describe('the queue kept between reads', () => {
  it('is read again once an active conversation’s end passes, and kept until then', async () => {
    const cache = await openCache({ file: join(folder, 'kept.sqlite') });
    try {
      const startMs = BASE - 10 * MINUTE_MS;
      const endMs = BASE + 5 * MINUTE_MS;
      await cache.write.storeConversation(
        conversation('conv-active', 'ACTIVE', DEMO_DEVICES[0].id, { startMs, endMs }),
        BASE,
      );
      let now = BASE;
      const review = new Review({
        cache: async () => cache,
        changed: () => undefined,
        mayTurnOnSignOff: async () => undefined,
        now: () => now,
      });
      const listed = async () => (await review.list()).items.map((i) => [i.id, i.reasons]);
      expect(await listed()).toEqual([]);
      // Written behind its back (no refresh): the kept queue is still the one shown…
      await cache.write.storeConversation(
        {
          ...(await cache.read.conversation(DEMO_DEVICES[0].id, 'conv-active'))!,
          status: 'FAILED',
        },
        BASE,
      );
      now = endMs - 1;
      expect(await listed()).toEqual([]);
      // …until the end passes: read again, as it is now.
      now = endMs;
      expect(await listed()).toEqual([['conv-active', [{ kind: 'failed', reason: '' }]]]);
    } finally {
      await cache.close();
    }
  });
  it('takes marks and a sync’s changes into the kept queue without reading it whole, as a reading would', async () => {
    const file = join(folder, 'marks.sqlite');
    const cache = await openCache({ file });
    const visit = (i: number, ...words: string[]) =>
      label(i, {
        notes: [`Vet: visit ${i}.`, ...words].map((content, at) =>
          note(content, T0 + at * MINUTE_MS),
        ),
      });
    try {
      await cache.write.storeLabels(
        [1, 2, 3, 4].map((i) => visit(i)),
        T0,
      );
      let wholeReadings = 0;
      const read = cache.read.reviewQueue.bind(cache.read);
      const counted = {
        ...cache,
        read: {
          ...cache.read,
          reviewQueue: (query: Parameters<typeof read>[0]) => (wholeReadings++, read(query)),
        },
      };
      const review = (reading: typeof cache) =>
        new Review({
          cache: async () => reading,
          changed: () => undefined,
          mayTurnOnSignOff: async () => undefined,
        });
      const kept = review(counted);
      const listed = async (of: Review) =>
        (await of.list()).items.map((i) => `${i.id.slice(-1)} ${i.reasons.map((r) => r.kind)}`);
      expect(await listed(kept)).toEqual(['4 new', '3 new', '2 new', '1 new']);
      expect(wholeReadings).toBe(1);
      const mark = (ids: number[], reviewed: boolean) =>
        kept.mark({ records: ids.map((i) => label(i).id), conversations: [], reviewed });
      expect(await mark([4, 3, 1], true)).toBe(1);
      expect(await listed(kept)).toEqual(['2 new']);
      expect(await mark([3], false)).toBe(2);
      expect(await listed(kept)).toEqual(['3 new', '2 new']);
      // A sync: a new record, and a reviewed one's transcript regenerated.
      await cache.write.storeLabels([visit(5), visit(4, 'Vet: visit 4, corrected.')], T0);
      expect(await kept.refresh()).toBe(4);
      expect(await listed(kept)).toEqual(['5 new', '4 updated', '3 new', '2 new']);
      expect(wholeReadings).toBe(1);
      // What a new reading of the cache says.
      expect(await listed(review(cache))).toEqual(await listed(kept));

      // More changes than the log keeps: read whole.
      const raw = new Database(file);
      raw.prepare('UPDATE queue_tracking SET cap = 2').run();
      raw.close();
      await cache.write.storeLabels([visit(6), visit(7)], T0);
      expect(await kept.refresh()).toBe(6);
      expect(wholeReadings).toBe(2);
      // A device renamed changes conversations the log cannot name: read whole.
      const device = { value: 'hub-1', displayName: 'Consult Room 1', serial: 'HUB-1' };
      await cache.write.storeDevices([device], T0);
      await kept.refresh();
      expect(wholeReadings).toBe(3);
      await cache.write.storeDevices([device], T0);
      await kept.refresh();
      expect(wholeReadings).toBe(3);
      await cache.write.storeDevices([{ ...device, displayName: 'Consult Room One' }], T0);
      await kept.refresh();
      expect(wholeReadings).toBe(4);
      expect(await listed(kept)).toEqual(await listed(review(cache)));
    } finally {
      await cache.close();
    }
  });
});
