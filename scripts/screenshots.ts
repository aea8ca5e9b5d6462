// `npm run screenshots`: renders the app's screens on the demo clinic into docs/screenshots/, at
// the minimum window size the UI promises (1280×800 here; see docs/ for the list). Re-run after
// UI changes. Needs the renderer built (npm run build) and Chromium.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, startShellProcess } from '../test/e2e/support';

const out = join(import.meta.dirname ?? '.', '..', 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'earmark-screenshots-'));
const shell = await startShellProcess(['--data', dataDir, '--demo']);
const browser = await launchChromium();
try {
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: scheme });
    await page.goto(shell.url);
    await page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Previous day' }).click();
    await page.getByRole('button', { name: /^Select suggested consult/ }).nth(3).click();
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
    await list.getByRole('option', { name: /Uploaded/ }).first().click();
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(out, 'conversations.png') });
    await page.close();
  }
} finally {
  await browser.close();
  await shell.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(`Screenshots written to ${out}`);
