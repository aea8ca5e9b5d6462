import { announceSkip } from '../support/skip';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label } from '../../src/shared/api';
import { currentTranscript, isProcessingContent } from '../../src/shared/transcript';
import { addDays } from '../../src/shared/timeline';
import {
  chromiumProblem,
  busyDay,
  openAppOnEmbeddedDemo,
  showDay,
  type AppOnEmbeddedDemo,
} from './support';
import { violations } from './axe';

const problem = announceSkip('the tests of test/e2e/accessibility.test.ts', chromiumProblem());
/**
 * Every screen of the app, in light and dark, and its dialogs, checked by axe-core against
 * WCAG 2.1 AA: names, roles, contrast, nesting of controls, label-in-name. The keyboard paths
 * themselves are tested with each screen (hub-timeline, recordings, follow-ups…).
 */
describe.skipIf(problem !== undefined)(
  'accessibility of every screen (axe-core, WCAG 2.1 AA)',
  () => {
    let app: AppOnEmbeddedDemo;
    let page: Page;
    let origin: string;

    beforeAll(async () => {
      app = await openAppOnEmbeddedDemo('a11y', { defaultTimeoutMs: 30_000 });
      page = app.page;
      origin = new URL(app.shell.url).origin;
    }, 90_000);
    afterAll(async () => {
      await app?.close();
    });

    const heading = (name: string | RegExp) =>
      page.getByRole('heading', { level: 1, name }).waitFor();
    /** Each screen, opened by its address and waited for until its content is drawn. */
    const screens: [string, () => Promise<void>][] = [
      [
        'review',
        async () => {
          await page.goto(`${origin}/#review`);
          await page
            .getByRole('listbox', { name: 'Items to review' })
            .getByRole('option')
            .first()
            .waitFor();
        },
      ],
      [
        'review settings',
        async () => {
          await page.goto(`${origin}/#settings/review`);
          await heading('Review');
          await page.getByRole('checkbox', { name: /Sign recordings off/ }).waitFor();
        },
      ],
      [
        'hub timeline',
        async () => {
          await page.goto(`${origin}/#timeline`);
          await page.getByRole('slider', { name: /^Timeline of/ }).waitFor();
          // A whole clinic day, whatever the day and hour now (today may have no speech yet).
          await showDay(page, busyDay());
          await page
            .getByRole('region', { name: 'Suggested consults' })
            .getByRole('listitem')
            .first()
            .waitFor();
        },
      ],
      [
        'hub timeline, a day with nothing recorded',
        async () => {
          await page.goto(`${origin}/#timeline`);
          await page.getByRole('slider', { name: /^Timeline of/ }).waitFor();
          // Before the demo clinic's history: an empty lane, named for what it would hold.
          await showDay(page, addDays(busyDay(), -3 * 365));
          await page.getByRole('group', { name: 'Conversations and suggested consults' }).waitFor();
        },
      ],
      [
        'conversations',
        async () => {
          await page.goto(`${origin}/#conversations`);
          await page
            .getByRole('listbox', { name: 'Conversations' })
            .getByRole('option')
            .first()
            .waitFor();
        },
      ],
      [
        'recordings',
        async () => {
          await page.goto(`${origin}/#recordings`);
          await page.locator('[role="row"][aria-rowindex="2"]').waitFor();
        },
      ],
      [
        'follow-ups',
        async () => {
          await page.goto(`${origin}/#follow-ups`);
          await heading('Follow-ups');
          await page.getByText('Not addressed').first().waitFor();
        },
      ],
      [
        'account',
        async () => {
          await page.goto(`${origin}/#settings/account`);
          await page.getByRole('navigation', { name: 'Settings sections' }).waitFor();
          await heading(/./);
        },
      ],
      [
        'data on this computer',
        async () => {
          await page.goto(`${origin}/#settings/data`);
          await heading('Data on this computer');
          await page
            .getByRole('button', { name: 'Remove now' })
            .and(page.locator(':enabled'))
            .waitFor();
        },
      ],
      [
        'webhooks',
        async () => {
          await page.goto(`${origin}/#settings/webhooks`);
          await heading('Webhooks');
          await page.getByRole('button', { name: 'New webhook' }).waitFor();
        },
      ],
      [
        'API keys',
        async () => {
          await page.goto(`${origin}/#settings/keys`);
          await heading('API keys');
          await page.getByRole('table').first().waitFor();
        },
      ],
    ];

    for (const scheme of ['light', 'dark'] as const) {
      for (const [name, open] of screens) {
        it(`${name}, ${scheme}`, async () => {
          await page.emulateMedia({ colorScheme: scheme });
          await open();
          expect(await violations(page)).toEqual([]);
        }, 60_000);
      }
    }

    it('the hub timeline with a consult selected', async () => {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${origin}/#timeline`);
      await showDay(page, busyDay());
      await page
        .getByRole('region', { name: 'Suggested consults' })
        .getByRole('button', { name: /^\d\d:\d\d(\s?[AP]M)?–/ })
        .first()
        .click();
      await page.getByRole('slider', { name: 'Selection start' }).waitFor();
      await page.getByRole('button', { name: 'Create conversation' }).waitFor();
      expect(await violations(page)).toEqual([]);
    }, 60_000);

    it('a hub record with its suggested patient, light and dark', async () => {
      const { organizationId } = app.demo.credentials.primary;
      const { body: labels } = await app.demo.get<Label[]>(
        `/organizations/${organizationId}/labels?types=HubMic&limit=20`,
      );
      const unassigned = labels.find((label) => label.patient === null)!;
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${origin}/#record/${unassigned.id}`);
        await page.getByRole('region', { name: 'Review' }).waitFor();
        await page.getByText('Suggested patient:').waitFor();
        expect(await violations(page)).toEqual([]);
      }
    }, 60_000);

    it('a record and its export dialog', async () => {
      const { organizationId } = app.demo.credentials.primary;
      const { body: labels } = await app.demo.get<Label[]>(
        `/organizations/${organizationId}/labels?types=ClinicConversation&limit=5`,
      );
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${origin}/#record/${labels[0]!.id}`);
      await page.getByRole('heading', { name: 'About this recording' }).waitFor();
      await page.getByRole('slider', { name: 'Playback position' }).waitFor();
      expect(await violations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Export…' }).click();
      await page.getByRole('dialog', { name: 'Export 1 recording' }).waitFor();
      expect(await violations(page)).toEqual([]);
      await page.keyboard.press('Escape');
    }, 60_000);

    it('naming a speaker: the label is a button with its name, the editor is reached by keyboard and announced', async () => {
      const { organizationId } = app.demo.credentials.primary;
      const { body: labels } = await app.demo.get<Label[]>(
        `/organizations/${organizationId}/labels?types=ClinicConversation&limit=20`,
      );
      let withTranscript: Label | undefined;
      for (const candidate of labels) {
        const { body } = await app.demo.get<Label>(`/labels/${candidate.id}`);
        const transcript = currentTranscript(body.ownedPatientNotes);
        if (transcript && !isProcessingContent(transcript.content)) {
          withTranscript = body;
          break;
        }
      }
      if (!withTranscript) throw new Error('the demo clinic has a consult with a transcript');
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto('about:blank');
        await page.goto(`${origin}/#record/${withTranscript.id}`);
        const lines = page.getByRole('list', { name: /^Transcript, line by line/ });
        // Each line's speaker is a button named for them ("Vet", "Speaker 1", or a given name).
        const label = lines.getByRole('listitem').first().getByRole('button');
        await label.waitFor();
        const speaker = (await label.textContent())!.trim();
        expect(await lines.getByRole('button', { name: speaker }).count()).toBeGreaterThan(0);
        expect(await violations(page)).toEqual([]);
        // By keyboard: focus on the label, Enter; the editor opens as a dialog named for the
        // speaker, focus inside it on the name.
        await label.focus();
        await page.keyboard.press('Enter');
        const editor = page.getByRole('dialog', { name: `Who is ${speaker}?` });
        await editor.waitFor();
        expect(
          await page.evaluate<string | null>(
            "document.activeElement?.closest('dialog')?.getAttribute('aria-labelledby') ?? null",
          ),
        ).not.toBeNull();
        expect(
          await editor
            .getByRole('combobox', { name: `Name (every line of ${speaker})` })
            .evaluate((element) => element === element.ownerDocument.activeElement),
        ).toBe(true);
        await page.keyboard.type('Dr');
        expect(await violations(page)).toEqual([]);
        await page.keyboard.press('Escape'); // the suggestions
        await page.keyboard.press('Escape'); // the dialog
        await editor.waitFor({ state: 'detached' });
        // Back on the label it was opened from.
        expect(
          await label.evaluate((element) => element === element.ownerDocument.activeElement),
        ).toBe(true);
      }
    }, 90_000);

    it('follow-ups: adding them to a record, a task open, the list, the board editor', async () => {
      const { organizationId } = app.demo.credentials.primary;
      const { body: labels } = await app.demo.get<Label[]>(
        `/organizations/${organizationId}/labels?types=ClinicConversation&limit=20`,
      );
      const visit = labels.find((label) => label.patient !== null)!;
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${origin}/#record/${visit.id}`);
      await page.getByRole('button', { name: 'Add follow-ups' }).click();
      const adding = page.getByRole('button', { name: /^Add \d follow-ups?$/ });
      await adding.waitFor();
      expect(await violations(page)).toEqual([]);
      await adding.click();
      await page.getByText(/^Added \d follow-ups? to/).waitFor();

      await page.goto(`${origin}/#follow-ups`);
      await heading('Follow-ups');
      const card = page.locator('button.card').first();
      const title = (await card.locator('.title').textContent())!;
      await card.click();
      await page.getByRole('complementary', { name: title }).waitFor();
      expect(await violations(page)).toEqual([]);
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await violations(page)).toEqual([]);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.getByRole('radio', { name: 'List' }).check();
      await page.getByRole('region', { name: /, by visit$/ }).waitFor();
      expect(await violations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Edit board' }).click();
      await page.getByRole('dialog', { name: /^Edit board/ }).waitFor();
      expect(await violations(page)).toEqual([]);
      await page.keyboard.press('Escape');
    }, 60_000);

    it('data on this computer with a kept recording, and removing everything asked first', async () => {
      const { organizationId } = app.demo.credentials.primary;
      const { body: labels } = await app.demo.get<Label[]>(
        `/organizations/${organizationId}/labels?types=DictationAudio&limit=1`,
      );
      await app.invoke('retention.keep', { labelId: labels[0]!.id, keep: true });
      await page.goto(`${origin}/#settings/data`);
      await page.getByRole('button', { name: /^Stop keeping the Dictation of/ }).waitFor();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await violations(page)).toEqual([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.getByRole('button', { name: 'Remove everything…' }).click();
      await page.getByRole('dialog', { name: /^Remove everything of/ }).waitFor();
      expect(await violations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await app.invoke('retention.keep', { labelId: labels[0]!.id, keep: false });
    }, 60_000);

    it('the new webhook form', async () => {
      await page.goto(`${origin}/#settings/webhooks`);
      await page.getByRole('button', { name: 'New webhook' }).click();
      await page.getByRole('dialog', { name: 'New webhook' }).waitFor();
      expect(await violations(page)).toEqual([]);
      await page.keyboard.press('Escape');
    }, 60_000);
  },
);
