import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const CANDIDATES = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'microsoft-edge',
];

/** A Chromium-family browser on PATH (or CHROMIUM_PATH), to open the browser shell as an app window. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CHROMIUM_PATH && existsSync(env.CHROMIUM_PATH)) return env.CHROMIUM_PATH;
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    for (const name of CANDIDATES) {
      const path = join(folder, name);
      if (folder && existsSync(path)) return path;
    }
  }
  return undefined;
}
