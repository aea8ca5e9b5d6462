import { existsSync } from 'node:fs';
import { findOnPath } from './executables';

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
  return findOnPath(CANDIDATES, env);
}
