import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemOpener } from '../../src/main/web/system-open';

/** The browser shell's "open" command: xdg-open from PATH, or none. */
const folder = mkdtempSync(join(tmpdir(), 'earmark-open-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the system opener', () => {
  it('is absent when PATH has no xdg-open, so the app says it cannot open folders', () => {
    expect(systemOpener({ PATH: folder }, 'linux')).toBeUndefined();
  });

  it('runs xdg-open with the target as its one argument', async () => {
    const bin = join(folder, 'bin');
    const opened = join(folder, 'opened.txt');
    const script = join(bin, 'xdg-open');
    mkdirSync(bin);
    writeFileSync(script, `#!/bin/sh\nprintf '%s|%s' "$#" "$1" > '${opened}'\n`);
    chmodSync(script, 0o755);
    const open = systemOpener({ PATH: bin }, 'linux');
    expect(open).toBeDefined();
    await open!('/home/vet/My Exports');
    await expect
      .poll(() => existsSync(opened) && readFileSync(opened, 'utf8'))
      .toBe('1|/home/vet/My Exports');
  });
});
