// The real Electron app, driven by Playwright. Electron's runtime cannot be downloaded here
// (package.json allowScripts denies its postinstall), so this reports itself skipped, with the
// reason, wherever the runtime is missing; where it exists, it runs.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';

function electronProblem(): string | undefined {
  try {
    const path = createRequire(import.meta.url)('electron') as unknown as string;
    if (!existsSync(path)) return `Electron's runtime is missing at ${path}`;
  } catch (error) {
    return `Electron's runtime is not installed (${(error as Error).message.split('\n')[0]}); its download is denied by package.json allowScripts — run \`npm start\` once where the network allows`;
  }
  if (!existsSync(join('out', 'main', 'index.js'))) return 'the app is not built (npm run build)';
  return undefined;
}

const problem = electronProblem();
if (problem) console.warn(`Skipping the Electron end-to-end tests: ${problem}`);

describe.skipIf(problem !== undefined)('the Electron app', () => {
  it('opens on the demo clinic and shows its organization', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'earmark-electron-e2e-'));
    const app = await _electron.launch({
      args: [join('out', 'main', 'index.js'), '--demo'],
      env: { ...process.env, EARMARK_DATA_DIR: dataDir },
    });
    try {
      const window = await app.firstWindow();
      expect(window.url()).toMatch(/^earmark:\/\/app\//);
      await window
        .getByRole('heading', { level: 1, name: 'Riverside Veterinary Clinic' })
        .waitFor({ timeout: 60_000 });
      expect(
        await window.evaluate(() => typeof (globalThis as { require?: unknown }).require),
      ).toBe('undefined');
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
