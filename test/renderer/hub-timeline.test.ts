import { beforeEach, describe, expect, it } from 'vitest';
import type { Conversation, TimelineMinute } from '../../src/shared/api';
import { dayRange, localDate, type ConversationBand } from '../../src/shared/timeline';
import { CLINIC_TIME_ZONE } from '../../src/renderer/src/lib/clinic-time';
import type { Sourced } from '../../src/shared/ipc';
import { HubTimelineStore } from '../../src/renderer/src/lib/hub-timeline.svelte';
import { timelineKey } from '../../src/renderer/src/lib/timeline-keys';
import { FakeEarmark, settle, sourced } from './support';

const MINUTE = 60_000;
const today = dayRange(localDate(Date.now(), CLINIC_TIME_ZONE), CLINIC_TIME_ZONE);
const at = (minute: number) => today.startMs + minute * MINUTE;

const speech = (minute: number): TimelineMinute => ({
  minuteStartMs: at(minute),
  vadIsSilent: false,
  vadSpeechDurationMs: 30_000,
  transcriptText: `words at ${minute}`,
  diarizedTranscriptText: '',
});
/** Two consults: minutes 600-605 and 700-705 (10:00 and 11:40). */
const MINUTES = [...[600, 601, 602, 603, 604, 605], ...[700, 701, 702, 703, 704, 705]].map(speech);
const band = (startMinute: number, endMinute: number, extra: Partial<ConversationBand> = {}) =>
  ({
    startMs: at(startMinute),
    endMs: at(endMinute),
    conversationId: `c-${startMinute}`,
    status: 'UPLOADED',
    labelId: `label-${startMinute}`,
    createdHere: false,
    source: 'service',
    ...extra,
  }) satisfies ConversationBand;
const conversation = (id: string, status: Conversation['status'], labelId?: string) =>
  ({
    conversationId: id,
    deviceId: 'hub-1',
    status,
    speechMinuteCount: 6,
    transcriptState: 'PENDING',
    isImportable: false,
    notImportableReason: '',
    transcriptText: '',
    ...(labelId ? { labelId } : {}),
  }) satisfies Conversation;

describe('the hub timeline store', () => {
  let fake: FakeEarmark;
  let store: HubTimelineStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    fake.handle('speakers.of', () => []);
    fake.handle('devices.list', () =>
      sourced([
        { value: 'hub-1', displayName: 'Consult Room 1', serial: 'S1' },
        { value: 'hub-2', displayName: 'Surgery Prep', serial: 'S2' },
      ]),
    );
    fake.handle('hub.minutes', ({ deviceId, startMs, endMs }) =>
      sourced({ deviceId, startMs, endMs, minutes: deviceId === 'hub-1' ? MINUTES : [] }),
    );
    fake.handle('hub.bands', () => sourced([band(600, 606)]));
    store = new HubTimelineStore(fake);
  });

  it('loads the first device’s day with its bands; a consult a band covers is shown as it', async () => {
    await store.loadDevices();
    await settle();
    expect(store.deviceId).toBe('hub-1');
    expect(fake.callsOf('hub.minutes')).toEqual([{ deviceId: 'hub-1', ...today }]);
    expect(fake.callsOf('hub.bands')).toEqual([{ deviceId: 'hub-1', ...today }]);
    expect(
      store.suggestions.map((s) => [s.startMs, s.endMs, s.covering?.conversationId ?? null]),
    ).toEqual([
      [at(600), at(606), 'c-600'],
      [at(700), at(706), null],
    ]);
  });

  it('says who spoke in a band’s record where the speakers are named', async () => {
    fake.handle('speakers.of', ({ labelIds }) =>
      labelIds.includes('label-600')
        ? [
            {
              labelId: 'label-600',
              speakers: [
                { label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' as const },
                { label: 'Speaker 2', name: 'Mrs Patel', role: null },
              ],
            },
          ]
        : [],
    );
    await store.loadDevices();
    await settle();
    expect(fake.callsOf('speakers.of')).toEqual([{ labelIds: ['label-600'] }]);
    expect(store.spoken.of(store.bands[0]!.labelId)).toBe('Dr Marsh (vet), Mrs Patel');
    expect(store.spoken.of(band(700, 706).labelId)).toBeNull();
  });

  it('keeps the selection when the screen comes back to the same day, and drops it on another', async () => {
    await store.loadDevices();
    await settle();
    store.select(at(700), at(706));
    const selected = store.range;
    // The screen mounts again (the user came back to it): the day is refreshed, the range stays.
    await store.loadDevices();
    await settle();
    expect(store.range).toEqual(selected);
    expect(selected).not.toBeNull();
    store.shiftDay(-1);
    await settle();
    expect(store.range).toBeNull();
  });

  it('says a day that failed to load failed, not that nothing was recorded; an unconfirmed selection says why (issue 20)', async () => {
    const offline = { kind: 'offline' as const, message: 'The clinic service cannot be reached.' };
    fake.fail('hub.minutes', offline);
    await store.loadDevices();
    await settle();
    expect(store.error?.kind).toBe('offline');
    expect(store.nothingRecorded).toBe(false);
    // A day that loaded with nothing on it says so.
    fake.handle('hub.minutes', ({ deviceId, startMs, endMs }) =>
      sourced({ deviceId, startMs, endMs, minutes: [] }),
    );
    store.shiftDay(-1);
    await settle();
    expect(store.nothingRecorded).toBe(true);
    // The service cannot confirm a selection: said, not "confirming…" for ever.
    fake.fail('hub.preview', offline);
    store.select(at(10), at(20));
    await store.confirmPreview();
    expect(store.previewOfSelection()).toBeNull();
    expect(store.previewErrorOfSelection()?.message).toBe(offline.message);
    store.select(at(30), at(40));
    expect(store.previewErrorOfSelection()).toBeNull();
  });

  it('offers no suggestion before the day’s bands are known', async () => {
    let answer: (bands: Sourced<ConversationBand[]>) => void = () => {};
    fake.handle('hub.bands', () => new Promise((resolve) => (answer = resolve)));
    await store.loadDevices();
    expect(store.consults).toHaveLength(2);
    expect(store.suggestions).toEqual([]);
    answer(sourced([]));
    await settle();
    expect(store.suggestions).toHaveLength(2);
  });

  it('says a selection overlaps a known conversation, and not one beside it', async () => {
    await store.loadDevices();
    await settle();
    store.select(at(604), at(620));
    expect(store.overlap?.conversationId).toBe('c-600');
    store.select(at(606), at(620));
    expect(store.overlap).toBeNull();
  });

  it('paints a day fetched before at once; offline that day keeps its minutes, an unknown one says why', async () => {
    await store.loadDevices();
    store.setDevice('hub-2');
    await settle();
    fake.fail('hub.minutes', { kind: 'offline', message: 'The clinic service cannot be reached.' });
    store.setDevice('hub-1');
    expect(store.minutes).toEqual(MINUTES); // from the day cache, before main answers
    await settle();
    expect(store.minutes).toEqual(MINUTES);
    expect(store.error).toBeNull();
    store.shiftDay(-1);
    await settle();
    expect(store.minutes).toBeNull();
    expect(store.error?.kind).toBe('offline');
  });

  it('shows the service’s refusal of a create as it is', async () => {
    await store.loadDevices();
    fake.handle('hub.create', () => ({
      success: false,
      message: 'The range overlaps the 10:00–10:06 UTC conversation (c-600).',
    }));
    store.select(at(600), at(606));
    await store.create();
    expect(store.outcome).toEqual({
      state: 'refused',
      message: 'The range overlaps the 10:00–10:06 UTC conversation (c-600).',
    });
  });

  it('creates, completes, follows through main and finds the record it became', async () => {
    await store.loadDevices();
    await settle();
    fake.handle('hub.create', () => ({ success: true, conversation: { conversationId: 'new' } }));
    fake.handle('conversations.get', () => sourced(conversation('new', 'ACTIVE')));
    store.select(at(700), at(705)); // the focus minute is included: [700, 706)
    await store.create();
    expect(fake.callsOf('hub.create')).toEqual([
      { deviceId: 'hub-1', startMs: at(700), endMs: at(706) },
    ]);
    expect(store.outcome).toMatchObject({ state: 'created', recordId: null });
    const bandsAsked = fake.callsOf('hub.bands').length;

    fake.handle('hub.complete', () => conversation('new', 'COMPLETED'));
    fake.handle('conversations.follow', () => sourced(conversation('new', 'PROCESSING')));
    await store.complete();
    expect(store.outcome).toMatchObject({ conversation: { status: 'PROCESSING' } });

    // Main pushes the final status; the service named no record, so main is asked for it.
    fake.handle('conversations.record', () =>
      sourced({
        id: 'label-new',
        type: 'HubMic',
        fromTime: new Date(at(700)).toISOString(),
        toTime: new Date(at(706)).toISOString(),
        patient: null,
        friendlyName: '',
        deviceSerial: 'S1',
        ownedPatientNotes: null,
      }),
    );
    fake.emit('conversation.changed', {
      deviceId: 'hub-1',
      conversation: conversation('new', 'UPLOADED'),
    });
    await settle();
    await settle();
    expect(store.outcome).toMatchObject({
      state: 'created',
      conversation: { status: 'UPLOADED' },
      recordId: 'label-new',
    });
    expect(fake.callsOf('hub.bands').length).toBeGreaterThan(bandsAsked);
  });

  it('stops offering a consult the moment a conversation is created for it', async () => {
    await store.loadDevices();
    await settle();
    fake.handle('hub.create', () => ({ success: true, conversation: { conversationId: 'new' } }));
    fake.handle('conversations.get', () => sourced(conversation('new', 'ACTIVE')));
    // The bands are read again after the create; until they answer, the new one is known here.
    let answerBands: () => void = () => {};
    fake.answer(
      'hub.bands',
      () =>
        new Promise((resolve) => {
          answerBands = () => resolve({ ok: true, value: sourced([band(600, 606)]) });
        }),
    );
    store.select(at(700), at(705));
    const creating = store.create();
    await expect.poll(() => store.outcome?.state).toBe('created');
    expect(store.suggestions.map((s) => s.covering?.conversationId ?? null)).toEqual([
      'c-600',
      'new',
    ]);
    answerBands();
    await creating;
  });

  it('draws a conversation just created once, when a read of the bands already holds it', async () => {
    await store.loadDevices();
    await settle();
    const created = band(700, 706, { conversationId: 'new', createdHere: true, source: 'created' });
    // Main keeps the range before it answers: a read made meanwhile finds the new conversation.
    // The read after the create is held, to look at the bands the outcome came with.
    fake.handle('hub.create', async () => {
      fake.handle('hub.bands', () => sourced([band(600, 606), created]));
      await store.loadBands();
      fake.answer('hub.bands', () => new Promise(() => {}));
      return { success: true, conversation: { conversationId: 'new' } };
    });
    fake.handle('conversations.get', () => sourced(conversation('new', 'ACTIVE')));
    store.select(at(700), at(705));
    void store.create();
    await expect.poll(() => store.outcome?.state).toBe('created');
    expect(store.bands.map((b) => b.conversationId)).toEqual(['c-600', 'new']);
  });

  it('keeps a band’s status current as main follows its conversation', async () => {
    await store.loadDevices();
    await settle();
    fake.emit('conversation.changed', {
      deviceId: 'hub-1',
      conversation: conversation('c-600', 'FAILED'),
    });
    expect(store.bands[0]!.status).toBe('FAILED');
  });

  it('says a Shift+arrow selection was capped when it stops at 90 minutes, and not before', async () => {
    await store.loadDevices();
    store.cursorMs = at(600);
    for (let i = 0; i < 89; i++) store.step(1, true);
    expect(store.range).toMatchObject({ startMs: at(600), endMs: at(690), capped: false });
    store.step(1, true); // one more minute would pass the cap: it stays, and says so
    expect(store.range).toMatchObject({ startMs: at(600), endMs: at(690), capped: true });
    store.step(-1, true);
    expect(store.range?.capped).toBe(false);
  });

  it('takes the timeline’s keys: minutes and hours, Shift selecting, consults, zoom, Enter and Escape', async () => {
    await store.loadDevices();
    await settle();
    fake.handle('hub.preview', ({ startMs, endMs }) => ({
      totalMinutes: (endMs - startMs) / MINUTE,
      speechMinutes: 0,
      silentMinutes: 0,
    }));
    const press = (key: string, shift = false, offline = false) =>
      timelineKey(store, key, { shift, offline });
    expect(press('a')).toBe(false);
    expect(press('Home')).toBe(true);
    expect(store.cursorMs).toBe(at(0));
    press('ArrowRight');
    press('PageDown');
    expect(store.cursorMs).toBe(at(61));
    press('ArrowRight', true);
    press('ArrowRight', true);
    expect(store.range).toMatchObject({ startMs: at(61), endMs: at(64) });
    await settle();
    expect(fake.callsOf('hub.preview').at(-1)).toMatchObject({ startMs: at(61), endMs: at(64) });
    press('Escape');
    expect(store.range).toBeNull();
    // ] picks the next open consult after the cursor; the one a band covers is skipped.
    press(']');
    expect(store.range).toMatchObject({ startMs: at(700), endMs: at(706) });
    expect(store.cursorMs).toBe(at(700));
    press('[');
    expect(store.range).toMatchObject({ startMs: at(700), endMs: at(706) });
    // Enter creates, except offline.
    fake.handle('hub.create', () => ({ success: false, message: 'No.' }));
    press('Enter', false, true);
    expect(fake.callsOf('hub.create')).toEqual([]);
    press('Enter');
    await settle();
    expect(fake.callsOf('hub.create')).toHaveLength(1);
    // ? shows the shortcuts, Escape closes them first and keeps the selection.
    press('?');
    expect(store.shortcutsShown).toBe(true);
    press('Escape');
    expect([store.shortcutsShown, store.range !== null]).toEqual([false, true]);
    const before = store.view.endMs - store.view.startMs;
    press('+');
    expect(store.view.endMs - store.view.startMs).toBeLessThan(before);
    press('-');
    expect(store.view.endMs - store.view.startMs).toBe(before);
  });
});
