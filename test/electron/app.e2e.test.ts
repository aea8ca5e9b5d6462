// The real Electron app on the demo clinic, driven by Playwright's _electron: the main flows (the
// demo clinic opens on the hub timeline, a recording plays, settings). It runs the built app (out/)
// on the installed runtime, launched as `npm start` launches it (the app folder); a packaged build cannot be driven this way, since
// its fuses refuse the inspector Playwright attaches with. Where the runtime, the SQLite addon's
// Electron build or a display is missing, it reports itself skipped, with the reason.
import { announceSkip } from '../support/skip';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ELECTRON_VERSION,
  appLaunchArgs,
  electronSqliteAddon,
  unpackedRuntime,
} from '../../scripts/electron-runtime';
import type { Label } from '../../src/shared/api';
import { demoService } from '../e2e/demo-service';

const root = fileURLToPath(new URL('../..', import.meta.url));
const runtime = unpackedRuntime();
// Where `npm start` (scripts/start.ts) builds the SQLite addon for Electron's ABI.
const sqliteBinding = process.env.EARMARK_SQLITE_BINDING ?? electronSqliteAddon(ELECTRON_VERSION);

function electronProblem(): string | undefined {
  if (!runtime.ok)
    return `Electron's runtime is not installed (${runtime.reason}): package.json allowScripts keeps its download out of npm ci; \`npm start\` fetches it where GitHub is reachable, or set ELECTRON_OVERRIDE_DIST_PATH`;
  if (!existsSync(join(root, 'out', 'main', 'index.js')))
    return 'the app is not built (npm run build)';
  if (!existsSync(sqliteBinding))
    return `the SQLite addon (better-sqlite3-multiple-ciphers) is not built for Electron at ${sqliteBinding} (run \`npm start\` once, or set EARMARK_SQLITE_BINDING)`;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return 'no display (DISPLAY is unset): run the tests under xvfb-run';
  return undefined;
}

const problem = announceSkip('the Electron end-to-end tests', electronProblem());

describe.skipIf(problem !== undefined)('the Electron app on the demo clinic', () => {
  let dataDir: string;
  let app: ElectronApplication;
  let window: Page;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'earmark-electron-e2e-'));
    app = await _electron.launch({
      executablePath: runtime.ok ? runtime.executable : undefined,
      // The app folder, as `npm start` launches it (package.json names the app and its main).
      // Chromium will not start its sandbox as root (containers, CI).
      args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), ...appLaunchArgs(['--demo'])],
      env: { ...process.env, EARMARK_DATA_DIR: dataDir, EARMARK_SQLITE_BINDING: sqliteBinding },
    });
    window = await app.firstWindow();
    await window.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is the app folder's app: package.json's name and version, resources/ beside it", async () => {
    const running = await app.evaluate(({ app: electronApp }) => ({
      name: electronApp.getName(),
      version: electronApp.getVersion(),
      appPath: electronApp.getAppPath(),
    }));
    const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      productName: string;
      version: string;
    };
    expect(running).toEqual({
      name: packageJson.productName,
      version: packageJson.version,
      appPath: root.replace(/\/$/, ''),
    });
  });

  it('opens from earmark:// with its CSP, the bridge, and no Node in the page', async () => {
    expect(window.url()).toMatch(/^earmark:\/\/app\//);
    const organization = window.getByRole('combobox', { name: 'Organization' });
    await expect(organization.locator('option:checked').textContent()).resolves.toContain(
      'Riverside Veterinary Clinic',
    );
    const page = await window.evaluate(async () => ({
      csp: (await fetch('/index.html')).headers.get('content-security-policy'),
      require: typeof (globalThis as { require?: unknown }).require,
      bridge: typeof (globalThis as { earmark?: { invoke?: unknown } }).earmark?.invoke,
    }));
    expect(page.csp).toContain("script-src 'self'");
    expect(page).toMatchObject({ require: 'undefined', bridge: 'function' });
  });

  it("shows a device's day on the timeline", async () => {
    const timeline = window.getByRole('slider', { name: /^Timeline of/ });
    await timeline.waitFor({ timeout: 30_000 });
    await expect(timeline.getAttribute('aria-valuemax')).resolves.not.toBe('0');
    const devices = window.getByRole('combobox', { name: 'Device' }).locator('option');
    await expect(devices.count()).resolves.toBeGreaterThan(0);
  });

  it('plays a recording and seeks it with the keyboard', async () => {
    const demo = demoService(dataDir);
    const orgId = demo.credentials.primary.organizationId;
    const consults = await demo.get<Label[]>(
      `/organizations/${orgId}/labels?types=ClinicConversation&limit=1`,
    );
    await window.evaluate(`location.hash = "#record/${consults.body[0]!.id}"`);
    const position = window.getByRole('slider', { name: 'Playback position' });
    await position.waitFor({ timeout: 30_000 });
    await expect(position.getAttribute('aria-valuemax')).resolves.not.toBe('0');
    await window.getByRole('button', { name: 'Play' }).click();
    await window.getByRole('button', { name: 'Pause' }).click();
    await position.focus();
    await window.keyboard.press('ArrowRight');
    await window.keyboard.press('ArrowRight');
    await expect
      .poll(async () => Number(await position.getAttribute('aria-valuenow')))
      .toBeGreaterThanOrEqual(10);
  }, 60_000);

  it('opens the settings: the organization, its subscription and diagnostics', async () => {
    await window.getByRole('link', { name: 'Settings' }).click();
    await window
      .getByRole('heading', { level: 1, name: 'Riverside Veterinary Clinic' })
      .waitFor({ timeout: 30_000 });
    await expect(
      window.getByRole('region', { name: 'Subscription' }).textContent(),
    ).resolves.toContain('Hub');
    await window.getByRole('button', { name: 'Run diagnostics' }).click();
    const results = window.getByRole('list', { name: 'Diagnostic results' });
    await results.waitFor({ timeout: 30_000 });
    await expect(results.textContent()).resolves.toContain('Conversations exist');
  }, 60_000);
});
