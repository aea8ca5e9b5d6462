import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Escapes text for an HTML attribute value. */
const attribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export interface LaunchPage {
  /** The file:// address to start the browser on. */
  url: string;
  remove(): void;
}

const launchPageOf = (dataDir: string) => join(dataDir, 'open-earmark.html');

/**
 * Removes a launch page an earlier run left (it crashed, or was killed, before its browser
 * opened the page): its token opens nothing now, but it need not stay on disk either.
 */
export const removeStaleLaunchPage = (dataDir: string) =>
  rmSync(launchPageOf(dataDir), { force: true });

/**
 * The page the browser is started on: it sends the browser on to the shell's address, token
 * included, so the token never appears in the browser's command line (`ps` shows every
 * process's arguments to every user of the machine). The file is this user's alone (0600, in
 * the data folder, 0700) — the way Jupyter keeps its token out of `ps` — and the shell removes
 * it as soon as the browser has come to the app from it (WebShellOptions.opened): it outlives
 * that moment only if the browser never gets there.
 */
export function writeLaunchPage(dataDir: string, shellUrl: string): LaunchPage {
  const file = launchPageOf(dataDir);
  writeFileSync(
    file,
    `<!doctype html>\n<meta http-equiv="refresh" content="0;url=${attribute(shellUrl)}">\n` +
      `<title>Opening Earmark…</title>\n`,
    { mode: 0o600 },
  );
  return { url: pathToFileURL(file).href, remove: () => rmSync(file, { force: true }) };
}

/** The browser's arguments for the shell's window: an app window on the launch page. */
export function browserArguments(launchPageUrl: string, profileDir: string): string[] {
  return [
    `--app=${launchPageUrl}`,
    `--user-data-dir=${profileDir}`,
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ];
}
