import { announceSkip } from '../support/skip';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label, Task } from '../../src/shared/api';
import type { BoardView, GroupFollowUps, Sourced } from '../../src/shared/ipc';
import type { DemoService } from './demo-service';
import {
  chromiumProblem,
  DIALECTS,
  openAppOnEmbeddedDemo,
  type AppOnEmbeddedDemo,
  type ShellProcess,
} from './support';

const problem = announceSkip('the tests of test/e2e/follow-ups.test.ts', chromiumProblem());
/** How long a poll waits for the page to catch up. */
const WAIT = { timeout: 10_000, interval: 100 };

describe.skipIf(problem !== undefined).each(DIALECTS)(
  'follow-ups in Chromium (browser shell, demo clinic, %s dialect)',
  (dialect) => {
    let app: AppOnEmbeddedDemo;
    let page: Page;
    let shell: ShellProcess;
    let demo: DemoService;
    let label: Label;

    const invoke = <T>(channel: string, input: unknown) => app.invoke<T>(channel, input);

    const appUrl = (hash: string) => `${new URL(shell.url).origin}/#${hash}`;
    const column = (status: string) => page.getByRole('region', { name: status, exact: true });
    const boardTasks = async () => {
      const { value: boards } = await invoke<Sourced<{ id: string }[]>>('followUps.boards', {});
      const board = await invoke<Sourced<BoardView>>('followUps.board', { boardId: boards[0]!.id });
      return board.value.tasks;
    };

    beforeAll(async () => {
      app = await openAppOnEmbeddedDemo(`follow-ups-${dialect}`, {
        dialect,
        context: { viewport: { width: 1280, height: 820 } },
        defaultTimeoutMs: 10_000,
      });
      ({ page, shell, demo } = app);
      const { organizationId } = demo.credentials.primary;
      const { body } = await demo.get<Label[]>(
        `/organizations/${organizationId}/labels?limit=50&types=ClinicConversation`,
      );
      label = body.find((l) => l.patient !== null)!;
      expect(label).toBeDefined();
    }, 90_000);
    afterAll(async () => {
      await app?.close();
    });

    it('offers to create the first board on a clinic without one (default template)', async () => {
      await page.getByRole('link', { name: 'Follow-ups' }).click();
      await page.getByRole('heading', { name: 'No follow-up board yet' }).waitFor();
      const form = page.getByRole('form', { name: 'Create a board' });
      await expect(
        form.getByRole('radio', { name: /The default template/ }).isChecked(),
      ).resolves.toBe(true);
      await form.getByRole('button', { name: 'Create board' }).click();
      // Open tasks by default: the open statuses are the columns, each with its count.
      await column('Not addressed').waitFor();
      await column('In progress').waitFor();
      await expect.poll(() => column('Completed').count(), WAIT).toBe(0);
      const empty = page.getByText(/^This board has no tasks yet\. Open a recording/);
      await empty.waitFor();
      // Its button goes where the hint says: to the recordings.
      await empty.getByRole('button', { name: 'Go to Recordings' }).click();
      await page.getByRole('grid', { name: 'Recordings' }).waitFor();
      await page.getByRole('link', { name: 'Follow-ups' }).click();
      await page.getByRole('radio', { name: /^All/ }).check();
      await column('No Action Needed').waitFor();
      await page.getByRole('radio', { name: /^Open/ }).check();
    });

    it('adds follow-ups from a recording: bulk, grouped as the visit, linked back, prefilled', async () => {
      await page.goto(appUrl(`record/${label.id}`));
      const section = page.getByRole('region', { name: 'Follow-ups' });
      await section.getByText('No follow-ups for this visit yet.').waitFor();
      await section.getByRole('button', { name: 'Add follow-ups' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add follow-ups' });
      await expect(dialog.getByRole('textbox', { name: 'Patient' }).inputValue()).resolves.toBe(
        label.patient!.name,
      );
      await expect(dialog.getByRole('textbox', { name: 'Doctor' }).inputValue()).resolves.toBe(
        'Owen Gallagher',
      );
      await expect
        .poll(() => dialog.getByRole('textbox', { name: /^Task \d$/ }).count(), WAIT)
        .toBe(3);
      await dialog.getByRole('button', { name: 'Add another task' }).click();
      await dialog.getByRole('textbox', { name: 'Task 4' }).fill('Send the lab results');
      await dialog.getByRole('button', { name: 'Add 4 follow-ups' }).click();
      await section.getByText('Added 4 follow-ups to “Follow-ups”.').waitFor();
      const listed = section.getByRole('list', { name: 'Follow-ups of this recording' });
      await expect.poll(() => listed.getByRole('listitem').count(), WAIT).toBe(4);

      const { value: group } = await invoke<Sourced<GroupFollowUps>>('followUps.group', {
        groupKey: label.id,
      });
      expect(group.tasks.map((t) => t.title)).toEqual([
        'Call the owner',
        'Send the invoice',
        'Book the recheck',
        'Send the lab results',
      ]);
      for (const task of group.tasks) {
        expect(task).toMatchObject({
          groupKey: label.id,
          linkUrl: `earmark://record/${label.id}`,
          fields: { patient: label.patient!.name, doctor: 'Owen Gallagher' },
          statusId: 'not_addressed',
        });
      }
    });

    it('moves one to Completed and shows when it was completed; comments stay after a reload', async () => {
      await page
        .getByRole('list', { name: 'Follow-ups of this recording' })
        .getByRole('link', { name: 'Call the owner' })
        .click();
      const detail = page.getByRole('complementary', { name: 'Call the owner' });
      await detail.waitFor();
      await detail.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Completed' });
      const completed = detail.getByText(/^Completed /);
      await completed.waitFor();
      const task = (await boardTasks()).find((t) => t.title === 'Call the owner')!;
      expect(task.statusId).toBe('completed');
      expect(Date.parse(task.completedAtIso ?? '')).not.toBeNaN();
      await expect(completed.locator('time').getAttribute('datetime')).resolves.toBe(
        task.completedAtIso,
      );
      // The card moved to the Completed column and says when.
      await expect
        .poll(
          () =>
            column('Completed')
              .getByRole('button', { name: /Call the owner/ })
              .textContent(),
          WAIT,
        )
        .toMatch(/Completed \w/);

      await detail
        .getByRole('textbox', { name: 'Add a comment' })
        .fill('Left a voicemail; <b>not</b> markup.');
      await detail.getByRole('button', { name: 'Post comment' }).click();
      const comments = detail.getByRole('list', { name: 'Comments' });
      await comments.getByText('Left a voicemail; <b>not</b> markup.').waitFor();

      // Edit fields, assignee and due date.
      await detail.getByRole('textbox', { name: 'Initials' }).fill('OG');
      await detail.getByRole('textbox', { name: 'Assignee' }).fill('Reception');
      await detail.getByLabel('Due date').fill('2030-01-31');
      await detail.getByRole('button', { name: 'Save changes' }).click();
      await detail.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const saved = (await boardTasks()).find((t) => t.id === task.id)!;
      expect(saved).toMatchObject({
        assignee: 'Reception',
        dueDate: '2030-01-31',
        fields: expect.objectContaining({ initials: 'OG' }),
      });

      // Main keeps the comments it posted (the service cannot list them): still there after a reload.
      await page.reload();
      await page.getByRole('radio', { name: /^All/ }).check();
      await column('Completed')
        .getByRole('button', { name: /Call the owner/ })
        .click();
      const again = page.getByRole('complementary', { name: 'Call the owner' });
      await again
        .getByRole('list', { name: 'Comments' })
        .getByText('Left a voicemail; <b>not</b> markup.')
        .waitFor();
      await again.getByText(/^Completed /).waitFor();
    });

    it('moves a task to another status by dragging its card to that column (issue 20)', async () => {
      await page.getByRole('radio', { name: /^All/ }).check();
      const card = column('Not addressed').getByRole('button').first();
      const title = (await card.locator('.title').textContent())!;
      await card.dragTo(column('In progress'));
      await column('In progress')
        .getByRole('button', { name: new RegExp(title) })
        .waitFor();
      const moved = (await boardTasks()).find((t) => t.title === title)!;
      expect(moved.statusId).toBe('in_progress');
    });

    it('removes a status that tasks use: the save asks where they go, then moves them', async () => {
      const detailOf = (title: string) => page.getByRole('complementary', { name: title });
      await page.getByRole('button', { name: /^Send the invoice/ }).click();
      await detailOf('Send the invoice')
        .getByRole('combobox', { name: 'Status' })
        .selectOption({ label: 'In progress' });
      await column('In progress')
        .getByRole('button', { name: /Send the invoice/ })
        .waitFor();

      await page.getByRole('button', { name: 'Edit board' }).click();
      const editor = page.getByRole('dialog', { name: 'Edit board “Follow-ups”' });
      await editor.getByRole('button', { name: 'Remove status In progress' }).click();
      await editor.getByRole('button', { name: 'Remove field Doctor' }).click();
      await editor.getByRole('button', { name: 'Save board' }).click();
      const choices = editor.getByRole('region', { name: 'Tasks use what this change removes' });
      await choices.getByText('“In progress” is removed but 1 task uses it.').waitFor();
      await choices.getByText(/4 tasks hold values of “Doctor” that become invalid/).waitFor();
      const save = editor.getByRole('button', { name: 'Save with these choices' });
      // Dropping values needs the user's word.
      await expect(save.isDisabled()).resolves.toBe(true);
      await choices
        .getByRole('combobox', { name: 'Move 1 task to' })
        .selectOption({ label: 'Not addressed' });
      await choices
        .getByRole('checkbox', { name: 'Remove these values from 4 tasks; the tasks stay' })
        .check();
      await save.click();
      await editor.waitFor({ state: 'detached' });

      await expect.poll(() => column('In progress').count(), WAIT).toBe(0);
      const tasks: Task[] = await boardTasks();
      expect(tasks.find((t) => t.title === 'Send the invoice')?.statusId).toBe('not_addressed');
      expect(tasks.every((t) => !('doctor' in t.fields))).toBe(true);
      // The completed task keeps its completion.
      expect(tasks.find((t) => t.title === 'Call the owner')?.statusId).toBe('completed');
    });

    it('lists the tasks by visit with counts per status, and opens the recording from a visit', async () => {
      await page.getByRole('radio', { name: /^All/ }).check();
      await page.getByRole('radio', { name: 'List' }).check();
      const perStatus = page.getByRole('list', { name: 'Tasks per status' });
      await expect
        .poll(() => perStatus.textContent(), WAIT)
        .toMatch(/Not addressed\s*3.*Completed\s*1/s);
      const visit = page.getByRole('region', { name: `Visit: ${label.patient!.name}` });
      await visit.getByText('4 tasks · 1 done').waitFor();
      await page.getByRole('radio', { name: /^Done/ }).check();
      await expect.poll(() => visit.getByRole('button').count(), WAIT).toBe(1);
      await visit.getByRole('link', { name: 'Open the recording' }).click();
      await page.getByRole('heading', { level: 1, name: /Clinic recording/ }).waitFor();
      await page
        .getByRole('list', { name: 'Follow-ups of this recording' })
        .getByText(/^Completed /)
        .waitFor();
    });
  },
);
