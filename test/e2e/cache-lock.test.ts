import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountSummary, LockedCache } from '../../src/shared/ipc';
import { KeychainSecretStore, cacheKeyEntry } from '../../src/main/accounts/secret-store';
import { secretServiceProblem } from '../support/secret-service';
import { announceSkip } from '../support/skip';
import { violations } from './axe';
import {
  chromiumProblem,
  DIALECTS,
  firstSync,
  invokeOverShell,
  openAppOnEmbeddedDemo,
  startShellProcess,
  type AppOnEmbeddedDemo,
  type ShellProcess,
} from './support';

const problem = announceSkip(
  'the tests of test/e2e/cache-lock.test.ts',
  chromiumProblem() ?? secretServiceProblem(),
);

/** Every file of the data folder's cache and audio, by path, with its digest: what must not change. */
function clinicalFiles(dataDir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const folder of ['cache', 'audio']) {
    const root = join(dataDir, folder);
    for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      files.set(path, createHash('sha256').update(readFileSync(path)).digest('hex'));
    }
  }
  return files;
}

/**
 * The key of a clinic's offline copy gone from the keychain (issue 30: the keychain reset): the
 * app says so in a dialog, by keyboard and to a screen reader, changes nothing while the user puts
 * it off, and starts a fresh cache, which fills from the service, only once they agree.
 */
describe.skipIf(problem !== undefined).each(DIALECTS)(
  'a cache whose key is gone, in Chromium (%s dialect)',
  (dialect) => {
    let app: AppOnEmbeddedDemo;
    let shell: ShellProcess;
    let page: Page;
    let account: AccountSummary;
    let before: Map<string, string>;

    const invoke = <T>(channel: string, input: unknown) =>
      invokeOverShell<T>(shell.url, channel, input);
    const dialog = () => page.getByRole('dialog', { name: /cannot be read/ });

    beforeAll(async () => {
      app = await openAppOnEmbeddedDemo(`cache-lock-${dialect}`, { dialect });
      await firstSync(app.invoke);
      account = (await app.invoke<AccountSummary[]>('accounts.list', {}))[0]!;
      await app.shell.stop();
      before = clinicalFiles(app.dataDir);
      // The keychain reset: the cache's key gone, the account's API key still there.
      new KeychainSecretStore().delete(cacheKeyEntry(account!.id));
      shell = await startShellProcess(['--data', app.dataDir, '--demo', '--demo-dialect', dialect]);
      page = app.page;
      await page.goto(shell.url);
    }, 120_000);
    afterAll(async () => {
      await shell?.stop();
      await app?.close();
    });

    it('says what happened and what would be lost, focus kept off the page behind, nothing changed on Not now', async () => {
      await dialog().waitFor({ timeout: 60_000 });
      await expect(invoke<LockedCache | null>('cache.locked', {})).resolves.toEqual({
        accountId: account.id,
        organizationName: account.organizationName,
        reason: 'key_missing',
      });
      const description = await dialog().evaluate(
        (element) =>
          element.ownerDocument.getElementById(element.getAttribute('aria-describedby') ?? '')
            ?.textContent ?? '',
      );
      expect(description.replace(/\s+/g, ' ')).toMatch(/That key is no longer there/);
      // WCAG 2.1 AA (axe-core), light here and dark below.
      expect(await violations(page)).toEqual([]);
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await violations(page)).toEqual([]);
      await page.emulateMedia({ colorScheme: 'light' });
      const text = (await dialog().textContent())!.replace(/\s+/g, ' ');
      expect(text).toMatch(/not on the clinic service is lost with it/);
      // However far the user tabs, focus never reaches the page behind (inert under the modal
      // dialog; past its last button Chromium gives it to the browser's own bar, then back).
      const reached = new Set<string>();
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press('Tab');
        const focused = await dialog().evaluate((element) => {
          const active = element.ownerDocument.activeElement;
          if (!active || active === element.ownerDocument.body) return 'outside the page';
          return element.contains(active) ? active.textContent!.trim() : 'the page behind';
        });
        reached.add(focused);
      }
      expect(reached).not.toContain('the page behind');
      expect(reached).toContain('Start a fresh cache');
      await page.keyboard.press('Escape');
      const banner = page.getByRole('status').filter({ hasText: 'cannot be read' });
      await banner.waitFor();
      expect(await violations(page)).toEqual([]);
      // Put off: the app goes on from the service and its locked copy stays as it was.
      await page.getByRole('link', { name: 'Recordings' }).click();
      await page.getByRole('grid', { name: 'Recordings' }).waitFor();
      expect(clinicalFiles(app.dataDir)).toEqual(before);
    });

    it('starts a fresh cache only when the user agrees, and it fills from the service', async () => {
      await page.getByRole('button', { name: 'Start a fresh cache…' }).focus();
      await page.keyboard.press('Enter');
      await dialog().waitFor();
      expect(clinicalFiles(app.dataDir)).toEqual(before);
      await page.getByRole('button', { name: 'Start a fresh cache', exact: true }).focus();
      await page.keyboard.press('Enter');
      await dialog().waitFor({ state: 'hidden', timeout: 30_000 });
      await expect(invoke<LockedCache | null>('cache.locked', {})).resolves.toBeNull();
      await firstSync(invoke);
      const after = clinicalFiles(app.dataDir);
      expect([...after].some(([path, digest]) => before.get(path) === digest)).toBe(false);
      await expect(
        page.getByRole('status').filter({ hasText: 'cannot be read' }).count(),
      ).resolves.toBe(0);
    });
  },
);
