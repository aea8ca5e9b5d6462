// Before anything uses Date: the simulator works in the process's local time.
process.env.TZ = 'Europe/London';

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../../src/shared/api';
import { createService, type ClinicService } from '../../src/service/app';
import type { ConversationRow } from '../../src/service/db/hub-store';
import { seedDemo } from '../../src/service/demo/demo-seed';
import { patientsNamedIn } from '../../src/service/demo/dialogue';
import { DEMO_DEVICES } from '../../src/service/demo/identity-seed';
import { letterOff } from '../../src/service/demo/transcription';
import { AUTO_RECORD_DELAY_MS, HubSimulator } from '../../src/service/hub/live-simulator';
import {
  localDayStart,
  nextLocalDay,
  simulateDay,
  type SimulatedConsult,
} from '../../src/service/hub/simulator';
import { all } from '../../src/node-common/sql';

/** Seeded on a Thursday morning; the clock then moves as the test says. */
const SEEDED = new Date(2026, 10, 19, 10, 30).getTime();
const PROCESSING_MS = 1000;
const ROOM_1 = DEMO_DEVICES[0];
const SURGERY = DEMO_DEVICES[2];

let service: ClinicService;
let dataDir: string;
let clock = SEEDED;

const simulator = () =>
  new HubSimulator({
    db: service.db,
    hub: service.hub,
    clips: service.clips,
    events: service.events,
    conversations: service.conversations,
    now: () => clock,
    processingMs: PROCESSING_MS,
  });

const conversationsOf = (deviceId: string) =>
  all<ConversationRow>(
    service.db,
    'SELECT * FROM conversations WHERE device_id = ? ORDER BY start_ms',
    deviceId,
  );

/** Room 1's consults that the seed left for the live simulator, in order. */
const laterConsults = (): SimulatedConsult[] => {
  const days = [localDayStart(SEEDED), nextLocalDay(localDayStart(SEEDED))];
  return days
    .flatMap((day) => simulateDay(service.clips, ROOM_1, day).consults)
    .filter((c) => c.endMs + AUTO_RECORD_DELAY_MS > SEEDED);
};

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'earmark-live-records-'));
  service = createService({ dataDir, now: () => clock, processingMs: PROCESSING_MS });
  seedDemo(service, SEEDED);
});

afterAll(async () => {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the live simulator: hubs in auto mode', () => {
  it('hands over nothing the seed already made history', () => {
    const before = conversationsOf(ROOM_1.id).length;
    simulator().fill(clock);
    expect(conversationsOf(ROOM_1.id)).toHaveLength(before);
  });

  it('hands a consult over once it has ended, and processing makes it a hub record with its transcript', () => {
    const consult = laterConsults()[0]!;
    const before = conversationsOf(ROOM_1.id).length;
    const surgeryBefore = conversationsOf(SURGERY.id).length;
    clock = consult.endMs + AUTO_RECORD_DELAY_MS - MINUTE_MS;
    simulator().fill(clock);
    expect(conversationsOf(ROOM_1.id)).toHaveLength(before);

    clock = consult.endMs + AUTO_RECORD_DELAY_MS + 1;
    simulator().fill(clock);
    const added = conversationsOf(ROOM_1.id).filter((c) => c.start_ms === consult.startMs);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ status: 'COMPLETED', origin: 'auto', end_ms: consult.endMs });
    // Surgery Prep records but is never reviewed: not in auto mode.
    expect(conversationsOf(SURGERY.id)).toHaveLength(surgeryBefore);

    clock += PROCESSING_MS;
    service.conversations.runDueSteps();
    service.conversations.runDueSteps();
    const done = conversationsOf(ROOM_1.id).find((c) => c.id === added[0]!.id)!;
    expect(done.status).toBe('UPLOADED');
    const label = service.labels.get(done.label_id!);
    expect(label).toMatchObject({ type: 'HubMic', friendlyName: 'Consult Room 1', patient: null });
    // The transcript names the consult's patient (as heard: a slip may change its spelling) and
    // no other patient of the dialogue bank.
    const transcript = done.transcript_text;
    const patient = consult.patient!;
    expect(
      [patient, patient.toLowerCase(), letterOff(patient)].some((p) => transcript.includes(p)),
    ).toBe(true);
    expect(patientsNamedIn(transcript).filter((name) => name !== patient)).toEqual([]);
  });

  it('hands each consult over once, and after a restart those it missed while stopped', () => {
    const [, second, third] = laterConsults();
    simulator().fill(clock);
    const count = () => conversationsOf(ROOM_1.id).length;
    const before = count();
    // Stopped across two more consults: the next start hands over both, once.
    clock = third!.endMs + AUTO_RECORD_DELAY_MS + MINUTE_MS;
    const restarted = simulator();
    restarted.fill(clock);
    restarted.fill(clock);
    const starts = conversationsOf(ROOM_1.id).map((c) => c.start_ms);
    expect(count()).toBe(before + 2);
    expect(starts).toContain(second!.startMs);
    expect(starts).toContain(third!.startMs);
  });
});
