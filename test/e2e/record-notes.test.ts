import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LabelStore } from '../../src/service/db/label-store';
import { openServiceDatabase } from '../../src/service/db/database';
import { SOAP_NOTE_TYPE } from '../../src/shared/api/values';
import type { Label } from '../../src/shared/api';
import { handOffText } from '../../src/shared/record/hand-off';
import { noteKinds } from '../../src/shared/record/notes';
import { recordTypeLabel } from '../../src/shared/record/record-kinds';
import { parseSoap } from '../../src/shared/record/soap';
import type { TimedLine } from '../../src/shared/record/timed-transcript';
import { machineTimeZone } from '../../src/shared/timeline';
import { seedLabel } from '../main/audio/fixtures';
import { announceSkip } from '../support/skip';
import { chromiumProblem, msOf, openAppOnDemoService, type AppOnDemoService } from './support';

const problem = announceSkip('the tests of test/e2e/record-notes.test.ts', chromiumProblem());
const WAIT = { timeout: 20_000, interval: 100 };

/**
 * The record a vet hands on, on the demo clinic: the SOAP note as its sections and copied for the
 * practice system, a hub record's transcript in step with its audio, notes as the real service
 * sends them (JSON, "{}"), and a readable time axis on a 90-minute recording.
 */
describe.skipIf(problem !== undefined).each([
  { dialect: 'seed', flags: [] as string[] },
  { dialect: 'field', flags: ['--dialect', 'field'] },
])('a record’s notes in Chromium (demo clinic, $dialect dialect)', ({ dialect, flags }) => {
  let app: AppOnDemoService;
  let page: Page;
  const fixtures: Record<string, string> = {};

  const details = async (labelId: string) =>
    (await (await app.serviceFetch(`/labels/${labelId}`)).json()) as Label;
  const open = async (labelId: string) => {
    await page.goto(`${new URL(app.shell.url).origin}/#record/${labelId}`);
    await page.getByRole('heading', { name: 'About this recording' }).waitFor({ timeout: 30_000 });
  };
  const position = () => page.getByRole('slider', { name: 'Playback position' });
  const seconds = async () => Number(await position().getAttribute('aria-valuenow'));

  beforeAll(async () => {
    app = await openAppOnDemoService(
      `record-notes-${dialect}`,
      { permissions: ['clipboard-read', 'clipboard-write'] },
      flags,
    );
    page = app.page;
    // Notes as public integrations report the real service sends them, and a 90-minute record.
    const organizationId = app.credentials.primary.organizationId;
    const db = openServiceDatabase(app.serviceDir);
    try {
      const labels = new LabelStore(db);
      const at = Date.UTC(2026, 10, 20, 9, 0);
      const soap = (content: string) => ({
        notes: [
          ['Transcript', 'Vet: Hello.', 1],
          [SOAP_NOTE_TYPE, content, 2],
        ] as [string, string, number][],
      });
      fixtures.json = seedLabel({ labels }, organizationId, {
        fromMs: at,
        ...soap(
          JSON.stringify({
            clinical_note: {
              subjective: { value: 'Coughing for a week.' },
              objective: { value: 'Harsh lung sounds.' },
              assessment: { value: 'Kennel cough.' },
              plan: { value: 'Rest; recheck in 7 days.' },
            },
          }),
        ),
      });
      fixtures.processing = seedLabel({ labels }, organizationId, {
        fromMs: at + 3_600_000,
        ...soap('{}'),
      });
      fixtures.long = seedLabel({ labels }, organizationId, {
        type: 'HubMic',
        fromMs: at + 2 * 3_600_000,
        minutes: 90,
      });
    } finally {
      db.close();
    }
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('shows the SOAP note as its four sections and copies it for the practice system', async () => {
    const { organizationId } = app.credentials.primary;
    const listed = (await (
      await app.serviceFetch(`/organizations/${organizationId}/labels?limit=200`)
    ).json()) as Label[];
    let label: Label | undefined;
    for (const candidate of listed) {
      const full = await details(candidate.id);
      const soap = noteKinds(full.ownedPatientNotes).find((k) => k.types[0] === SOAP_NOTE_TYPE);
      if (soap && full.patient && parseSoap(soap.current.content).kind === 'sections') {
        label = full;
        break;
      }
    }
    expect(label, 'the demo clinic has a record with a SOAP note').toBeDefined();
    await open(label!.id);
    // The title in plain words; the service's type name only in the details, for support.
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      recordTypeLabel(label!.type),
    );
    const card = page.getByRole('region', { name: 'Clinical note (SOAP)' });
    await card.waitFor();
    expect(await card.getByRole('heading', { level: 3 }).allTextContents()).toEqual([
      'Subjective',
      'Objective',
      'Assessment',
      'Plan',
    ]);

    await card.getByRole('button', { name: 'Copy for the practice system' }).click();
    await card
      .getByRole('status')
      .filter({ hasText: /^Copied the clinical note for/ })
      .waitFor();
    const soap = noteKinds(label!.ownedPatientNotes).find((k) => k.types[0] === SOAP_NOTE_TYPE)!;
    const expected = handOffText({
      patient: label!.patient!.name,
      fromMs: msOf(label!.fromTime),
      toMs: msOf(label!.toTime),
      timeZone: machineTimeZone(),
      recordKind: recordTypeLabel(label!.type),
      note: parseSoap(soap.current.content),
    });
    const clipboard = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(clipboard).toBe(expected);
    expect(clipboard).toContain(`Patient: ${label!.patient!.name}`);
  }, 90_000);

  it('renders a JSON SOAP note as titled sections, and "{}" as being written', async () => {
    await open(fixtures.json!);
    const card = page.getByRole('region', { name: 'Clinical note (SOAP)' });
    expect(await card.getByRole('heading', { level: 3 }).allTextContents()).toEqual([
      'Subjective',
      'Objective',
      'Assessment',
      'Plan',
    ]);
    await card.getByText('Rest; recheck in 7 days.').waitFor();
    await open(fixtures.processing!);
    await page
      .getByRole('region', { name: 'Clinical note (SOAP)' })
      .getByText(/Being written by the service/)
      .waitFor();
    await expect(
      page.getByRole('button', { name: 'Copy for the practice system' }).count(),
    ).resolves.toBe(0);
  }, 60_000);

  it('plays a hub record from a transcript line and keeps the playing line highlighted', async () => {
    const { organizationId } = app.credentials.primary;
    const hubRecords = (await (
      await app.serviceFetch(`/organizations/${organizationId}/labels?types=HubMic&limit=200`)
    ).json()) as Label[];
    let chosen: { label: Label; lines: TimedLine[] } | undefined;
    for (const label of hubRecords) {
      const lines = await app.invoke<TimedLine[] | null>('labels.transcriptLines', {
        labelId: label.id,
      });
      // Lines in at least five different minutes: two minutes at least after the third line.
      if (lines && new Set(lines.map((l) => l.offsetMs)).size >= 5) {
        chosen = { label, lines };
        break;
      }
    }
    expect(chosen, 'the demo clinic has a hub record with a transcript over minutes').toBeDefined();
    const { label, lines } = chosen!;
    await open(label.id);
    const list = page.getByRole('list', { name: /^Transcript, line by line/ });
    await list.waitFor();
    await position().waitFor();
    // Each line is a play button (beside its speaker's button, which names them).
    const playButtons = list.locator('button.line');
    const third = playButtons.nth(2);
    await third.click();
    await expect
      .poll(seconds, WAIT)
      .toBeGreaterThanOrEqual(Math.floor(lines[2]!.offsetMs / 1000) - 1);
    expect(await seconds()).toBeLessThanOrEqual(Math.ceil(lines[2]!.offsetMs / 1000) + 3);
    // The line highlighted is the first of the minute playing (lines of a minute share its time).
    const firstOfMinute = lines.findIndex((l) => l.offsetMs === lines[2]!.offsetMs);
    await expect
      .poll(() => playButtons.nth(firstOfMinute).getAttribute('aria-current'), WAIT)
      .toBe('time');

    // Playing on: the highlight moves to each next minute's line as the audio reaches it.
    const current = () => list.locator('[aria-current="time"]').first().textContent();
    const minuteStarts = [...new Set(lines.map((l) => l.offsetMs))].filter(
      (ms) => ms > lines[2]!.offsetMs,
    );
    for (const nextMs of minuteStarts.slice(0, 2)) {
      const next = lines.find((l) => l.offsetMs === nextMs)!;
      // Seek to 4 s before that minute with the player's own keys (5 s a press), then wait.
      for (let press = 0; press < 200 && (await seconds()) < nextMs / 1000 - 9; press++)
        await position().press('ArrowRight');
      await expect.poll(current, { timeout: 30_000, interval: 100 }).toContain(next.text);
      expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(1);
    }
  }, 120_000);

  it('labels the time axis of a 90-minute recording without overlaps at 1024 and 1440 px', async () => {
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      await open(fixtures.long!);
      await position().waitFor();
      const labels = page.locator('.axis .axis-label');
      await expect.poll(() => labels.count(), WAIT).toBeGreaterThanOrEqual(3);
      const boxes = (await labels.evaluateAll((all) =>
        all.map((element) => {
          const { left, right } = element.getBoundingClientRect();
          return { left, right };
        }),
      )) as { left: number; right: number }[];
      boxes.sort((a, b) => a.left - b.left);
      for (let i = 1; i < boxes.length; i++) {
        expect(boxes[i]!.left, `labels ${i - 1} and ${i} at ${width} px`).toBeGreaterThan(
          boxes[i - 1]!.right,
        );
      }
    }
  }, 90_000);
});
