import { announceSkip } from '../support/skip';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/service/webhooks/signature';
import { startReceiver, type Receiver } from '../service/receiver';
import type { DemoService } from './demo-service';
import { chromiumProblem, openAppOnEmbeddedDemo, type AppOnEmbeddedDemo } from './support';

const problem = announceSkip('the tests of test/e2e/admin.test.ts', chromiumProblem());
/** How long a poll waits for the page to catch up. */
const WAIT = { timeout: 10_000, interval: 100 };

describe.skipIf(problem !== undefined)(
  'administration in Chromium (browser shell, demo clinic)',
  () => {
    let app: AppOnEmbeddedDemo;
    let page: Page;
    let demo: DemoService;
    /** The webhook receiver: a server on 127.0.0.1, never any other address. */
    let receiver: Receiver;
    let secret = '';

    const invoke = <T>(channel: string, input: unknown) => app.invoke<T>(channel, input);

    beforeAll(async () => {
      receiver = await startReceiver();
      expect(new URL(receiver.url).hostname).toBe('127.0.0.1');
      app = await openAppOnEmbeddedDemo('admin', {
        context: { viewport: { width: 1280, height: 820 } },
        defaultTimeoutMs: 10_000,
      });
      ({ page, demo } = app);
    }, 90_000);
    afterAll(async () => {
      await app?.close();
      await receiver?.close();
    });

    it('creates a webhook and shows its secret once, with a warning', async () => {
      await page.getByRole('link', { name: 'Settings' }).click();
      await page
        .getByRole('navigation', { name: 'Settings sections' })
        .getByRole('link', { name: 'Webhooks' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
      await page.getByRole('button', { name: 'New webhook' }).click();
      const form = page.getByRole('dialog', { name: 'New webhook' });
      await form.getByRole('textbox', { name: 'Address' }).fill(receiver.url);
      await form.getByRole('textbox', { name: 'Description' }).fill('Practice management system');
      await form.getByRole('radio', { name: /Only these/ }).check();
      await form.getByRole('checkbox', { name: /Test ping/ }).check();
      await form.getByRole('checkbox', { name: /Follow-up created/ }).check();
      await form.getByRole('button', { name: 'Create webhook' }).click();

      const created = page.getByRole('dialog', { name: 'Webhook created' });
      const field = created.getByRole('textbox', { name: /^Signing secret/ });
      secret = await field.inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      await expect(field.getAttribute('readonly')).resolves.not.toBeNull();
      await expect
        .poll(() => created.textContent(), WAIT)
        .toContain('This is the only time it is shown');
      await created.getByRole('button', { name: 'Copy secret' }).click();
      await created
        .getByRole('status')
        .filter({ hasText: /Copied|copy it with/ })
        .waitFor();
      await created.getByRole('button', { name: 'I have copied it' }).click();
      await created.waitFor({ state: 'detached' });

      // Gone for good: not on the page, not in the list main answers.
      await expect(page.content()).resolves.not.toContain(secret);
      const listed = await invoke<unknown[]>('admin.webhooks', {});
      expect(JSON.stringify(listed)).not.toContain(secret);
      const detail = page.getByRole('complementary', { name: receiver.url });
      await detail.getByText('Practice management system').waitFor();
      await detail.getByText('Test ping, Follow-up created').waitFor();
      await detail.getByText('Nothing delivered yet. Send a test to check the address.').waitFor();
    });

    it('sends a test and shows the delivery in the log', async () => {
      const detail = page.getByRole('complementary', { name: receiver.url });
      await detail.getByRole('button', { name: 'Send test' }).click();
      await detail.getByRole('status').filter({ hasText: 'Test ping delivered.' }).waitFor();
      const log = detail.getByRole('table', { name: 'Delivery attempts, newest first' });
      const row = log.getByRole('row').nth(1);
      await expect
        .poll(() => row.textContent(), WAIT)
        .toMatch(/Test ping\s*1\s*✓\s*204, delivered\s*\d+ ms/);

      const [delivery] = await receiver.waitFor(1);
      expect(delivery!.event.type).toBe('ping');
      expect(
        verifySignature(secret, delivery!.body, delivery!.headers['x-service-signature'] as string),
      ).toBe(true);
      // The list shows the state and the failures in a row.
      const webhooks = page.getByRole('table', { name: 'Webhooks' });
      await expect
        .poll(() => webhooks.getByRole('row').nth(1).textContent(), WAIT)
        .toMatch(/Active\s*0$/);
    });

    it('deletes a webhook after confirmation', async () => {
      const detail = page.getByRole('complementary', { name: receiver.url });
      await detail.getByRole('button', { name: 'Delete…' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete this webhook?' });
      await expect.poll(() => confirm.textContent(), WAIT).toContain('This cannot be undone.');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await expect(invoke<unknown[]>('admin.webhooks', {})).resolves.toHaveLength(1);
      await detail.getByRole('button', { name: 'Delete…' }).click();
      await confirm.getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
      await expect(invoke<unknown[]>('admin.webhooks', {})).resolves.toEqual([]);
    });

    it('revokes a second key after confirmation and shows it revoked', async () => {
      await page
        .getByRole('navigation', { name: 'Settings sections' })
        .getByRole('link', { name: 'API keys' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await page.getByText(/Creating a key needs a signed-in user of the service/).waitFor();
      const keys = page.getByRole('table', { name: /^API keys of/ });
      const row = keys.getByRole('row', { name: /Records export/ });
      await expect.poll(() => row.textContent(), WAIT).toMatch(/Active/);
      await expect
        .poll(() => keys.getByRole('row', { name: /Earmark desktop/ }).textContent(), WAIT)
        .toMatch(/This app/);
      await expect
        .poll(() => keys.getByRole('row', { name: /Old reception PC/ }).textContent(), WAIT)
        .toMatch(/Revoked/);

      await row.getByRole('button', { name: 'Revoke Records export' }).click();
      const confirm = page.getByRole('dialog', { name: 'Revoke “Records export”?' });
      await expect.poll(() => confirm.textContent(), WAIT).toContain('This cannot be undone.');
      await confirm.getByRole('button', { name: 'Revoke key' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /“Records export” .* is revoked\./ })
        .waitFor();
      await expect.poll(() => row.textContent(), WAIT).toMatch(/Revoked/);
      await expect.poll(() => row.getByRole('button').count(), WAIT).toBe(0);

      // The service refuses it from now on; the app's own key still works.
      const refused = await demo.get('/auth/me', demo.credentials.labelsOnly.apiKey);
      expect(refused.status).toBe(401);
      await expect(invoke('identity.me', {})).resolves.toMatchObject({
        organizationName: 'Riverside Veterinary Clinic',
      });
    });

    it('keeps the diagnostics on the Account section', async () => {
      await page
        .getByRole('navigation', { name: 'Settings sections' })
        .getByRole('link', { name: 'Account' })
        .click();
      await page.getByRole('button', { name: 'Run diagnostics' }).click();
      const results = page.getByRole('list', { name: 'Diagnostic results' });
      await expect.poll(() => results.getByRole('listitem').count(), WAIT).toBe(3);
    });
  },
);
