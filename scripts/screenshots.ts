// `npm run screenshots`: renders the app's screens on the demo clinic into docs/screenshots/, at
// the minimum window size the UI promises (1280×800 here; see docs/ for the list). Re-run after
// UI changes. Needs the renderer built (npm run build) and Chromium.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Label } from '../src/shared/api';
import { transcriptVersions } from '../src/shared/transcript';
import { demoService } from '../test/e2e/demo-service';
import { launchChromium, startShellProcess } from '../test/e2e/support';
import { startReceiver } from '../test/service/receiver';

const out = join(import.meta.dirname ?? '.', '..', 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'earmark-screenshots-'));
const shell = await startShellProcess(['--data', dataDir, '--demo']);
const browser = await launchChromium();
try {
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      colorScheme: scheme,
    });
    await page.goto(shell.url);
    await page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Previous day' }).click();
    await page
      .getByRole('button', { name: /^Select suggested consult/ })
      .nth(3)
      .click();
    await page.getByText('Confirmed by the service.').waitFor();
    await page.screenshot({ path: join(out, `timeline-day-${scheme}.png`) });
    if (scheme === 'dark') continue;

    const timeline = page.getByRole('slider', { name: /^Timeline of/ });
    const box = (await timeline.boundingBox())!;
    const selection = (await page.getByRole('slider', { name: 'Selection start' }).boundingBox())!;
    await page.mouse.move(selection.x + 20, box.y + box.height / 2);
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -100);
    await page.mouse.move(selection.x + 40, box.y + box.height / 2);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(out, 'timeline-hour.png') });

    await page.getByRole('link', { name: 'Conversations' }).click();
    const list = page.getByRole('listbox', { name: 'Conversations' });
    await list.getByRole('option').first().waitFor();
    await list
      .getByRole('option', { name: /Uploaded/ })
      .first()
      .click();
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(out, 'conversations.png') });
    await page.close();
  }

  // Review (issue 27): the queue by day, and a hub record with its suggested patient.
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      colorScheme: scheme,
    });
    await page.goto(shell.url);
    await page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
    await page
      .getByRole('navigation', { name: 'Earmark' })
      .getByRole('link', { name: /^Review/ })
      .click();
    const queue = page.getByRole('listbox', { name: 'Items to review' });
    await queue.getByRole('option').first().waitFor();
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(out, `review-${scheme}.png`) });
    if (scheme === 'light') {
      await queue
        .getByRole('option', { name: /Ambient hub recording/ })
        .first()
        .click();
      await page.getByText('Suggested patient:').waitFor();
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(out, 'review-record.png') });
    }
    await page.close();
  }

  // Follow-ups and webhooks (issue 8): a board with three visits' follow-ups, and two webhooks
  // (receivers on 127.0.0.1 only: one answers, one fails), shown in light and dark.
  const demo = demoService(dataDir);
  const { body: labels } = await demo.get<Label[]>(
    `/organizations/${demo.credentials.primary.organizationId}/labels?limit=60&types=ClinicConversation`,
  );
  const visits = labels.filter((label) => label.patient !== null).slice(0, 3);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const origin = new URL(shell.url).origin;
  await page.goto(shell.url);
  await page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
  for (const [i, label] of visits.entries()) {
    await page.goto(`${origin}/#record/${label.id}`);
    await page.getByRole('button', { name: 'Add follow-ups' }).click();
    if (i === 2) await page.getByRole('button', { name: /^Remove task 3/ }).click();
    await page.getByRole('button', { name: /^Add \d follow-ups?$/ }).click();
    await page.getByText(/^Added \d follow-ups? to/).waitFor();
  }
  await page.getByRole('link', { name: 'Send the invoice' }).click();
  const status = () => page.getByRole('combobox', { name: 'Status' });
  await status().selectOption({ label: 'In progress' });
  await page
    .getByRole('button', { name: /^Call the owner/ })
    .first()
    .click();
  await status().selectOption({ label: 'Completed' });
  await page
    .getByRole('textbox', { name: 'Add a comment' })
    .fill('Owner called back; booked for Thursday.');
  await page.getByRole('button', { name: 'Post comment' }).click();
  await page
    .getByRole('button', { name: /^Book the recheck/ })
    .first()
    .click();
  await page.getByRole('textbox', { name: 'Assignee' }).fill('Reception');
  await page.getByLabel('Due date').fill('2030-01-31');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved.').waitFor();
  // The whole board (every status), then a done task with its completion time and comment.
  await page.getByRole('button', { name: 'Close the task details' }).click();
  await page.getByRole('radio', { name: /^All/ }).check();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(out, `follow-ups-board-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('radio', { name: /^Done/ }).check();
  await page
    .getByRole('region', { name: 'Completed', exact: true })
    .getByRole('button', { name: /^Call the owner/ })
    .click();
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(out, 'follow-ups-task.png') });
  await page.getByRole('button', { name: 'Close the task details' }).click();
  await page.getByRole('radio', { name: 'List' }).check();
  await page.getByRole('radio', { name: /^All/ }).check();
  await page.screenshot({ path: join(out, 'follow-ups-list.png') });

  // A record (issue 6): the player and the transcript, its version history with the word diff,
  // and an export's summary. A consult with audio, a patient and a regenerated transcript.
  let record: Label | undefined;
  for (const label of labels) {
    const { body } = await demo.get<Label>(`/labels/${label.id}`);
    const versions = transcriptVersions(body.ownedPatientNotes);
    if (body.patient && versions.length >= 2 && versions[0]!.content !== versions[1]!.content) {
      const audio = await fetch(`${demo.baseUrl}/labels/${label.id}/audio`, {
        headers: { authorization: `Bearer ${demo.credentials.primary.apiKey}`, range: 'bytes=0-0' },
      });
      if (audio.status === 206) {
        record = body;
        break;
      }
    }
  }
  if (record) {
    await page.goto(`${origin}/#record/${record.id}`);
    const wave = page.getByRole('slider', { name: 'Playback position' });
    await wave.waitFor({ timeout: 30_000 });
    const waveBox = (await wave.boundingBox())!;
    await page.mouse.click(waveBox.x + waveBox.width * 0.38, waveBox.y + waveBox.height / 2);
    await page.evaluate('document.activeElement?.blur()'); // no focus ring in the picture
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(out, `record-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: /^Version history/ }).click();
    await page.getByRole('group', { name: /^Changes from/ }).scrollIntoViewIfNeeded();
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(out, 'record-history.png') });
    const exportDir = mkdtempSync(join(tmpdir(), 'earmark-screenshots-export-'));
    try {
      await page.getByRole('button', { name: 'Export…' }).click();
      await page.getByRole('textbox', { name: 'Folder' }).fill(exportDir);
      await page.getByRole('button', { name: 'Export 1 recording' }).click();
      await page.getByRole('heading', { name: 'Export finished' }).waitFor();
      await page.screenshot({ path: join(out, 'record-export.png') });
      await page.getByRole('button', { name: 'Done' }).click();
    } finally {
      rmSync(exportDir, { recursive: true, force: true });
    }
  } else {
    console.warn(
      'No consult with audio, a patient and two transcript versions: record views skipped.',
    );
  }

  // The Recordings list (issue 6): two recordings ticked, at 1280×800 and at the smallest window
  // (1024×700); then the search box's hits in the cached transcripts.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${origin}/#recordings`);
  const grid = page.getByRole('grid', { name: 'Recordings' });
  for (const row of [1, 3]) await grid.getByRole('checkbox').nth(row).check();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(out, 'recordings.png') });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(out, 'recordings-1024.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('searchbox', { name: 'Search transcripts and patients' }).fill('vomiting');
  // The transcripts are searchable once the background sync has fetched them.
  await page.locator('.hits mark').first().waitFor({ timeout: 120_000 });
  await page.screenshot({ path: join(out, 'recordings-search.png') });
  await page.getByRole('button', { name: 'Back to the list' }).click();

  // An export of every recording, cancelled once files are under way: its summary offers Retry.
  const cancelDir = mkdtempSync(join(tmpdir(), 'earmark-screenshots-cancel-'));
  try {
    await page.getByRole('button', { name: /^Export all \d[\d,]* matching$/ }).click();
    await page.getByRole('textbox', { name: 'Folder' }).fill(cancelDir);
    await page.getByRole('button', { name: /^Export \d[\d,]* recordings$/ }).click();
    await page.getByRole('list', { name: 'Files' }).getByRole('listitem').nth(2).waitFor();
    await page.getByRole('button', { name: 'Cancel export' }).click();
    await page.getByRole('heading', { name: 'Export cancelled' }).waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(out, 'export-retry.png') });
    await page.getByRole('button', { name: 'Done' }).click();
  } finally {
    rmSync(cancelDir, { recursive: true, force: true });
  }

  const healthy = await startReceiver();
  const failing = await startReceiver(() => 503);
  try {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    for (const [receiver, description] of [
      [healthy, 'Practice management system'],
      [failing, 'Lab integration (staging)'],
    ] as const) {
      await page.getByRole('button', { name: 'New webhook' }).click();
      await page.getByRole('textbox', { name: 'Address' }).fill(receiver.url);
      await page.getByRole('textbox', { name: 'Description' }).fill(description);
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.getByRole('textbox', { name: /^Signing secret/ }).waitFor();
      if (receiver === healthy) await page.screenshot({ path: join(out, 'webhook-secret.png') });
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await page.getByRole('button', { name: 'Send test' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^Test ping|not delivered/ })
        .waitFor();
    }
    await failing.waitFor(2, 10_000); // the first retry comes about a second later
    await page.getByRole('button', { name: 'Refresh log' }).click();
    await page.waitForTimeout(500);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(out, `webhooks-${scheme}.png`) });
    }
  } finally {
    await healthy.close();
    await failing.close();
  }

  // Data on this computer (issue 29): a recording kept, the text set to a day, the preview of
  // the next cleanup.
  await page.emulateMedia({ colorScheme: 'light' });
  if (record) {
    await page.goto(`${origin}/#record/${record.id}`);
    await page.getByRole('checkbox', { name: 'Keep on this computer' }).check();
  }
  await page.goto(`${origin}/#settings/data`);
  const text = page.getByRole('combobox', { name: 'Text' });
  await page.getByRole('button', { name: 'Remove now' }).and(page.locator(':enabled')).waitFor();
  await text.selectOption({ label: '1 day' });
  await page
    .locator('dl[aria-label="What the next cleanup removes"] dd')
    .first()
    .filter({ hasText: /^[1-9]/ })
    .waitFor();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(200);
    await page.screenshot({
      path: join(out, `data-on-this-computer-${scheme}.png`),
      fullPage: true,
    });
  }
} finally {
  await browser.close();
  await shell.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(`Screenshots written to ${out}`);
