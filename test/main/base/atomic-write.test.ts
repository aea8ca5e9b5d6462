import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  removeStaleTemporaries,
  writeFileAtomic,
  writeFileAtomicSync,
} from '../../../src/main/base/atomic-write';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'earmark-atomic-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe.each([
  ['writeFileAtomic', (path: string, data: string) => writeFileAtomic(path, data)],
  ['writeFileAtomicSync', async (path: string, data: string) => writeFileAtomicSync(path, data)],
])('%s', (_name, write) => {
  it('writes the file whole, private to this user, replacing what was there', async () => {
    const path = join(folder, 'accounts.json');
    await write(path, 'first');
    await write(path, 'second');
    expect(readFileSync(path, 'utf8')).toBe('second');
    expect(mode(path)).toBe(0o600);
    expect(readdirSync(folder)).toEqual(['accounts.json']);
  });

  it('leaves nothing behind when the file cannot be written', async () => {
    const path = join(folder, 'taken');
    await write(join(path, 'a'), 'x').catch(() => undefined);
    writeFileSync(path, 'a file where a folder is expected');
    await expect(write(join(path, 'inside.json'), 'x')).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    expect(readdirSync(folder)).toEqual(['taken']);
  });
});

it('takes another mode when asked, and can skip flushing', async () => {
  const path = join(folder, 'index.json');
  await writeFileAtomic(path, 'x', { durable: false, mode: 0o644 });
  expect(mode(path)).toBe(0o644);
});

it('removes the temporaries a crash left, never a write under way', async () => {
  const old = join(folder, '.earmark-0123456789ab.tmp');
  const fresh = join(folder, '.earmark-ba9876543210.tmp');
  writeFileSync(old, 'torn');
  writeFileSync(fresh, 'being written');
  writeFileSync(join(folder, 'keep.tmp'), 'not ours');
  const start = Date.now();
  utimesSync(old, new Date(start - 60_000), new Date(start - 60_000));
  await removeStaleTemporaries(folder, start - 1000);
  expect(readdirSync(folder).sort()).toEqual(['.earmark-ba9876543210.tmp', 'keep.tmp']);
});
